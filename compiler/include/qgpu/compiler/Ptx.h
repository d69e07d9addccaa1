// The PTX IR: what Clang emits for integer kernels, parsed into functions, instructions and operands,
// each instruction carrying its PTX line and the CUDA line from the last `.loc`.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Isa.h"

namespace qgpu::ptx {

struct Operand {
    enum class Kind { Reg, Imm, Address, Symbol, Special, Label, Vector };
    Kind kind = Kind::Imm;
    std::string name;      // register (%r1), symbol, special (%tid.x), label; address base
    int64_t value = 0;     // immediate, or address offset
    bool isFloat = false;  // a 0f/0d float literal: value holds its bits, name its text
};

struct Instruction {
    std::string opcode;              // full, e.g. "ld.global.u32"
    std::vector<std::string> parts;  // opcode split at '.', e.g. {"ld", "global", "u32"}
    std::string guard;               // predicate register guarding the instruction, or empty
    bool guardNegated = false;       // @!%p
    std::vector<Operand> operands;
    int ptxLine = 0;    // 1-based line in the PTX text
    SourceLoc cudaLoc;  // CUDA line in the kernel's own file (0 = unknown); code inlined from
                        // headers carries the line of the user's code that used it
    int locFile = 0;    // the .file number of the last .loc as written in the PTX

    bool has(const std::string& part) const;  // opcode modifier present, e.g. has("global")
};

struct Param {
    std::string name;
    std::string type;        // "u64", "u32", ...
    int64_t arrayBytes = 0;  // `.b8 name[N]`: a struct or vector passed by value, N bytes; 0 for a scalar
};

struct SharedArray {
    std::string name;
    int64_t bytes = 0;
    bool dynamic = false;  // `extern __shared__ T x[]`: sized by the launch
};

// A module-scope variable in global or constant memory: a CUDA __device__ or __constant__ variable, or a
// local table with an initializer that Clang keeps there. Its bytes as the launch begins.
struct GlobalVariable {
    std::string name;
    int elementBytes = 1;        // of its declared PTX type (Clang declares initialized data as .b8)
    int alignment = 4;           // .align: a CUDA table of bytes has 1, of shorts 2
    std::vector<uint8_t> bytes;  // the initial contents, zero where the initializer stops
    std::string unsupported;     // why the machine cannot hold it, or ""
};

struct Function {
    std::string name;
    bool isEntry = false;
    std::vector<Param> params;
    std::vector<Instruction> body;
    std::map<std::string, size_t> labels;  // label -> index of the instruction it precedes
    int ptxLine = 0;
    std::vector<std::string> floatRegisters;  // `.reg .f32` declarations: "%f<" for a range %f<N>, or a name

    bool isFloatRegister(const std::string& name) const;  // declared .f32 (%f7 by "%f<", %x by "%x")
};

struct Module {
    std::vector<Function> functions;
    std::vector<SharedArray> shared;      // module-scope .shared arrays (CUDA __shared__)
    std::vector<GlobalVariable> globals;  // module-scope .global and .const variables
    std::vector<SharedArray> locals;      // .local arrays: the stack (Clang's __local_depot)
    std::map<int, std::string> files;     // .file number -> name
    int mainFile = 0;                     // the .file number of the kernel's .cu source
    bool debug = false;                   // `.target sm_75, debug`: compiled at -O0
    // The debug sections' lines (".debug_info" -> {".b8 1", ".b64 $L__func_begin0", ...}), read by -g.
    std::map<std::string, std::vector<std::string>> debugSections;
};

// Throws DiagnosticError naming the PTX line for text it cannot parse.
Module parse(const std::string& text, const std::string& fileName = "<ptx>");

}  // namespace qgpu::ptx
