// The instruction set: opcodes, operands, machine blocks and programs (see docs/isa.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace qgpu {

enum class Opcode : uint8_t {
    // ALU: rd = rs1 OP b, where b is rs2 or the immediate
    Add,
    Sub,
    Mul,
    Shl,
    Shr,
    Sra,
    And,
    Or,
    Xor,
    Not,
    Min,
    Max,
    MinU,
    MaxU,
    Mov,
    // compares: rd = (rs1 CMP b) ? 1 : 0
    SetEq,
    SetNe,
    SetLt,
    SetLe,
    SetGt,
    SetGe,
    SetLtU,
    SetLeU,
    SetGtU,
    SetGeU,
    Sel,         // rd = rc != 0 ? rs1 : b
    Sreg,        // rd = special register imm
    LdGlobal,    // rd = global[rs1 + imm]
    StGlobal,    // global[rs1 + imm] = rs2
    LdShared,    // rd = shared[rs1 + imm]
    StShared,    // shared[rs1 + imm] = rs2
    AtomGlobal,  // rd = global[rs1 + imm]; global[rs1 + imm] += rs2 (lanes in ascending order)
    AtomShared,
    ShflIdx,
    ShflUp,
    ShflDown,
    ShflBfly,  // rd = rs1 of source lane chosen by b, within width aux
    // terminators
    Jmp,  // all active lanes -> target
    Br,   // lanes with rc != 0 -> target, others -> elseTarget
    Bar,  // barrier across the thread block, then -> target
    Exit,
    // body instruction with no register or memory effect: each active lane whose rc != 0 records a
    // warning event
    Warn,  // imm = MachineWarning
    Count_
};

// What a `warn` instruction reports (the lowering of integer division places them on the policy paths).
enum class MachineWarning : uint8_t { DivisionByZero = 1, DivisionOverflow = 2, CallStackFull = 3 };
std::string_view machineWarningName(
    MachineWarning w);  // the assembler's operand: "divzero", "divoverflow", "stackfull"
std::optional<MachineWarning> machineWarningFromName(std::string_view name);
std::string machineWarningText(uint32_t code);  // what the warning event says

enum class SpecialReg : uint8_t {
    TidX,
    TidY,
    TidZ,
    NtidX,
    NtidY,
    NtidZ,
    CtaidX,
    CtaidY,
    CtaidZ,
    NctaidX,
    NctaidY,
    NctaidZ,
    LaneId,
    WarpId,
    Count_
};

enum class OperandForm : uint8_t {
    None,         // exit
    RdAB,         // op rd, rs1, b
    RdB,          // op rd, b        (mov)
    RdA,          // op rd, rs1      (not)
    RdABC,        // op rd, rs1, b, rc  (sel)
    RdSreg,       // op rd, %sreg
    Load,         // op rd, [rs1 + imm]
    Store,        // op [rs1 + imm], rs2
    Atomic,       // op rd, [rs1 + imm], rs2
    Shuffle,      // op rd, rs1, b, width
    Target,       // op target
    CondTargets,  // op rc, target, elseTarget
    Warning       // op rc, NAME      (warn)
};

struct OpcodeInfo {
    Opcode op;
    std::string_view mnemonic;
    OperandForm form;
    bool terminator;
};

const OpcodeInfo& opcodeInfo(Opcode op);
std::optional<Opcode> opcodeFromMnemonic(std::string_view mnemonic);
std::string_view specialRegName(SpecialReg r);
std::optional<SpecialReg> specialRegFromName(std::string_view name);

// One instruction. Unused fields stay zero so encoding round-trips exactly.
struct Instruction {
    Opcode op = Opcode::Exit;
    uint8_t rd = 0;
    uint8_t rs1 = 0;
    uint8_t rs2 = 0;
    uint8_t rc = 0;         // condition register of sel and br
    bool useImm = false;    // b is imm instead of rs2 (ALU, compares, sel, shuffles)
    uint8_t aux = 0;        // shuffle width as log2 (0..2)
    uint32_t imm = 0;       // immediate, memory offset, special register, or branch targets
    std::string immSymbol;  // unresolved `$name` (an argument) or `#i` (the i-th argument); empty once linked

    // Branch targets live in imm: target in the low 16 bits, elseTarget in the high 16 bits.
    uint16_t target() const { return uint16_t(imm & 0xFFFF); }
    uint16_t elseTarget() const { return uint16_t(imm >> 16); }
    void setTargets(uint16_t t, uint16_t e) { imm = uint32_t(t) | (uint32_t(e) << 16); }

    bool operator==(const Instruction& o) const;
};

struct SourceLoc {
    int line = 0;  // 1-based, 0 = unknown
    int column = 0;
};

// A machine block: up to MachineSpec::slotsPerBlock body instructions, then exactly one terminator.
struct Block {
    std::string label;
    SourceLoc labelLoc;  // where `label:` stands (0 for unnamed blocks)
    std::vector<Instruction> body;
    Instruction terminator;
    std::vector<SourceLoc> bodyLocs;  // parallel to body (may be empty)
    SourceLoc terminatorLoc;
    uint16_t floatRegisters = 0;  // bit r: register r holds a float (PTX .f32) as the block begins; from CUDA only
    // Once linked, parallel to body (or empty): the array or variable whose base address the linker added to
    // the immediate, "" for none; the debugger's bounds check (ArrayBounds.h) starts from them.
    std::vector<std::string> bodySymbols;
};

// The type of an array's elements or of a scalar, as launch specs name it. Memory packs elements narrower than
// a word several to a word, little-endian, as a GPU lays them out.
enum class ElementType { I32, U32, F32, Bool, I8, U8, I16, U16, I64, U64 };

// A kernel parameter, known when the program comes from CUDA: launches must match them in order.
struct ProgramParam {
    std::string name;
    bool isArray = false;                    // a pointer parameter takes an array argument, others a scalar
    ElementType element = ElementType::I32;  // the scalar's type, or what the pointer points to
    // A struct or vector passed by value: its size in bytes. It lives in global memory like an array of
    // bytes that the launch gives ("fields"), and isArray is true.
    int structBytes = 0;
};

// Link-time immediates of compiled programs: the word address of the launch's local memory (a frame of
// Program::localWords words per thread slot, after the arrays and variables), and the warps per block.
inline constexpr const char* kLocalMemorySymbol = "%local";
inline constexpr const char* kWarpsPerBlockSymbol = "%warps";
inline constexpr const char* kFrameWordsSymbol = "%frame";  // Program::localWords
// `#i.hi` (or `$name.hi`): the high word of a 64-bit scalar argument; without it, the low word.
inline constexpr const char* kHighWordSuffix = ".hi";

// A variable of the program in global memory (CUDA's __device__ and __constant__ variables, and tables that
// Clang keeps there): placed after the launch's arrays, holding `values` when the launch begins.
struct ProgramGlobal {
    std::string name;
    ElementType element = ElementType::I32;  // i32 words, or u8 bytes when its size is not a whole word
    std::vector<int64_t> values;
};

// The machine's clock (CUDA's clock(), clock64() and %globaltimer): a global word that every read advances by
// one with an atomic add, so each thread reads a strictly increasing count, the same on every run.
inline constexpr const char* kClockCounterName = "__qgpu_clock";

// A CUDA variable or parameter of the kernel or of a device function it calls, from a -g build: its type,
// the lines where it is in scope, and where it lives there. At -O0 every variable lives in the thread's frame in local
// memory; an optimized build's PTX carries line tables only (as nvcc's -lineinfo), so a -g build at -O1..-O3 lists no
// variables.
struct ProgramVariable {
    enum class Kind { Scalar, Pointer, Aggregate };
    std::string function;  // the kernel's or device function's name, as CUDA writes it
    std::string name;
    std::string typeName;  // as CUDA spells it: "int", "const float *", "uchar4", "int[8]"
    Kind kind = Kind::Scalar;
    ElementType element = ElementType::I32;  // a scalar's type (a pointer holds a 64-bit byte address)
    int bytes = 4;
    bool parameter = false;
    int declLine = 0;
    int firstLine = 0, lastLine = 0;  // the CUDA lines of its scope
    int frameByte = -1;               // its first byte in the thread's local-memory frame; -1: gone
};

struct Program {
    std::vector<Block> blocks;               // block 0 is the entry
    int sharedWords = 0;                     // shared memory the program uses per thread block
    std::string dynamicShared;               // an `extern __shared__` array (after sharedWords), or ""
    int localWords = 0;                      // local memory per thread (a frame in global memory, kLocalMemorySymbol)
    std::vector<ProgramParam> params;        // empty for hand-written assembly (arguments are then found by name)
    std::vector<ProgramGlobal> globals;      // in global memory after the launch's arrays; `$name` addresses them
    std::string sourceFile;                  // the .cu or .qasm it came from, for diagnostics ("" when unknown)
    std::vector<ProgramVariable> variables;  // the kernel's CUDA variables: built with -g, else empty

    int blockIndex(std::string_view label) const;  // -1 if absent
};

}  // namespace qgpu
