// A launch: grid and block shape, kernel arguments, and where the arrays live in memory.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "qgpu/core/Isa.h"
#include "qgpu/core/MachineSpec.h"

namespace qgpu {

struct Dim3 {
    int x = 1, y = 1, z = 1;
    int count() const { return x * y * z; }
    bool operator==(const Dim3& o) const { return x == o.x && y == o.y && z == o.z; }
};

// Bytes per element; the launch spec's name ("i32", "f32", "u8", ...) and the C type's name ("unsigned char").
int elementBytes(ElementType type);
const char* elementTypeName(ElementType type);
const char* elementCName(ElementType type);
// Whether an argument of type `a` can serve a parameter of type `b`: elements of one size, floats for
// floats (an int array serves an unsigned* parameter, a u8 array a bool*).
bool sameStorage(ElementType a, ElementType b);
// Elements in the words that hold them: four bytes or two halves a word, lowest first; a 64-bit element in
// two words, its low word first (little-endian, as on a GPU).
std::vector<int32_t> packElements(const std::vector<int64_t>& elements, ElementType type);
// `count` elements read back from memory words, each sign- or zero-extended to 64 bits by its type.
std::vector<int64_t> unpackElements(const std::vector<int32_t>& words, ElementType type, size_t count);

struct KernelArg {
    std::string name;
    bool isArray = false;
    // Array elements, or one value for a scalar, each in an int64_t: sign- or zero-extended by the type
    // (a u64 as its bits), a float's IEEE-754 binary32 bits, 0 or 1 for a bool.
    std::vector<int64_t> values;
    ElementType type = ElementType::I32;  // "type": "i32" (or "int", the default), "float", "u8", ...
    bool zeros = false;                   // given as "zeros": N (N zero elements), and written back so
    // "fields": a struct passed by value, its fields in order, each with its type; `values` then holds the
    // struct's bytes (u8) laid out as C lays them out (each field on a multiple of its size, the whole a
    // multiple of its widest field).
    struct Field {
        ElementType type;
        int64_t value;
    };
    std::vector<Field> fields;
    bool isFloat() const { return type == ElementType::F32; }
};

// The longest array a launch spec may give ("array" or "zeros").
constexpr int kMaxLaunchArrayWords = 1 << 20;

struct ArrayPlacement {
    std::string name;
    int base = 0;  // word address in global memory
    int size = 0;  // words
    ElementType type = ElementType::I32;
    int count = 0;  // elements (size * 4 / elementBytes, less a last word's unused bytes)
    bool isFloat() const { return type == ElementType::F32; }
};

// A word as a person reads it: an int, or for a float the shortest decimal that reads back to the same
// bits ("nan", "inf", "-inf", "-0" included).
std::string formatWord(int32_t word, bool isFloat);
// A float as a literal: formatWord's text with ".0" on whole numbers (2.0, -0.0, 1e+20); a finite one reads
// back as the same float wherever decimals are read (inf and nan stay words).
std::string formatFloatLiteral(int32_t word);
// An element as a person reads it in its type: formatWord for ints and floats, unsigned types without a sign,
// a bool as "true" or "false" (another byte as its number).
std::string formatElement(int64_t value, ElementType type);

struct LaunchSpec {
    Dim3 grid;
    Dim3 block;
    std::vector<KernelArg> args;
    // "symbols": contents for the kernel's __device__ and __constant__ variables, set before the launch as
    // CUDA's cudaMemcpyToSymbol sets them (each replaces the variable's initializer and must fill it).
    std::vector<KernelArg> symbols;
    int sharedBytes = 0;  // "shared_bytes": dynamic shared memory per block (CUDA's third launch parameter)
    // Optional expected final contents of array arguments and symbols, as elements (checked by tests and
    // `--check`).
    std::vector<std::pair<std::string, std::vector<int64_t>>> expect;
    // "expect": {"printf": [...]}: the texts device printf's calls should print, in any order (CUDA leaves
    // the order across threads open); empty when not given.
    std::vector<std::string> expectPrintf;
    std::string file;  // the spec's file name, for diagnostics ("" when made in code)

    const KernelArg* arg(const std::string& name) const;
    const KernelArg* symbol(const std::string& name) const;
    int threadsPerBlock() const { return block.count(); }
    int totalThreads() const { return grid.count() * block.count(); }
    int warpsPerBlock(const MachineSpec& spec) const;
    bool hasExpectations() const { return !expect.empty() || !expectPrintf.empty(); }
};

// Arrays are placed one after another from word 0, in argument order (an array of 64-bit elements on an even
// word).
struct MemoryMap {
    // Global word 0 is null: no array or variable is placed there, so a pointer to one never compares
    // equal to nullptr (a GPU never allocates at address 0).
    static constexpr int kNullWords = 1;
    std::vector<ArrayPlacement> arrays;
    int usedWords = kNullWords;
    int localBase = 0;  // local memory: Program::localWords per thread slot from here (0 words when none)
    const ArrayPlacement* find(const std::string& name) const;
};

// Parses the JSON launch description; throws DiagnosticError with the offending field named.
LaunchSpec parseLaunchSpec(const std::string& json, const std::string& fileName = "<launch>");
// The one writer of launch JSON, which parseLaunchSpec reads back to the same launch: compact, or readable
// (one argument a line, as the studio's launch panel and chat's cards show it).
enum class JsonLayout { Compact, Readable };
std::string launchSpecToJson(const LaunchSpec& launch, JsonLayout layout = JsonLayout::Compact);

// Checks the launch against the machine and computes the memory map; throws DiagnosticError.
MemoryMap validateLaunch(const LaunchSpec& launch, const MachineSpec& spec);

// Adds the program's global variables (Program::globals) to the map after the launch's arrays, holding the
// launch's symbol of their name where it gives one, then its local memory (a frame per thread slot); throws
// DiagnosticError when they do not fit global memory, a variable has the name of an argument, or a symbol
// names no variable or does not fill its variable.
void placeProgramGlobals(MemoryMap& map, const Program& program, const LaunchSpec& launch, const MachineSpec& spec);

// A program made ready for one launch: the launch checked against the machine (validateLaunch), and the
// program linked to it: `$name` immediates resolved (array base address or scalar value), and the program
// checked to fit the machine (ROM size, registers, targets, shared memory).
struct LinkedLaunch {
    Program program;
    MemoryMap map;
};
// The one way to load a program with its launch, for every caller. Throws DiagnosticError.
LinkedLaunch linkLaunch(const Program& program, const LaunchSpec& launch,
                        const MachineSpec& spec = MachineSpec::standard());

}  // namespace qgpu
