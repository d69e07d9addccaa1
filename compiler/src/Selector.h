// The instruction selector, private to the compiler library: PTX instructions -> virtual machine
// instructions (InstructionSelection.h). InstructionSelection.cpp holds the statements, control flow, ALU
// operations, moves and compares; SelectionAddresses.cpp the 64-bit registers (word addresses and 64-bit
// data); SelectionMemory.cpp loads, stores and atomics; SelectionNarrow.cpp 8- and 16-bit values and the
// operations that become instruction sequences (Sequences.h).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "InstructionSelection.h"
#include "Sequences.h"
#include "qgpu/core/Diagnostic.h"

namespace qgpu::lowering {

using ptx::Operand;
using Kind = ptx::Operand::Kind;

// How a 64-bit PTX register is held in a 32-bit machine register. Addresses are bytes in PTX but words
// on the machine: a Word register holds bytes / 4, a Byte register the low 32 bits of the value.
enum class Rep { Byte, Word };
enum class Space { Unknown, Global, Shared, Local, Mixed };

struct Wide {
    Rep rep = Rep::Byte;
    Space space = Space::Unknown;
};

inline bool isWideReg(const std::string& name) { return name.rfind("%rd", 0) == 0 || name.rfind("%SP", 0) == 0; }
inline bool is64BitType(const std::string& type) { return type == "s64" || type == "u64" || type == "b64"; }

inline constexpr const char* kOtherFloat =
    "double and half precision are not supported: the machine computes in 32-bit float; use float and write "
    "literals as 0.5f";

// Floats other than f32: the machine has no double or half precision.
inline bool mentionsOtherFloat(const ptx::Instruction& in) {
    for (const auto& p : in.parts)
        if (p == "f16" || p == "f64" || p == "bf16" || p == "f16x2" || p == "bf16x2") return true;
    return false;
}

inline std::string typeOf(const ptx::Instruction& in) { return in.parts.size() > 1 ? in.parts.back() : ""; }

// Local memory is a part of global memory (a frame per thread), so a pointer into either is global.
inline Space merge(Space a, Space b) {
    if (a == Space::Unknown) return b;
    if (b == Space::Unknown || a == b) return a;
    if ((a == Space::Local && b == Space::Global) || (a == Space::Global && b == Space::Local)) return Space::Global;
    return Space::Mixed;
}

// How one lane of an atomic routine computes the word it writes from the word it read and the routine's
// arguments (args[0] is the address, then the instruction's operands in PTX order).
using AtomicUpdate = std::function<void(Emitter& e, int updated, int old, const std::vector<int>& args)>;
// The same for 64-bit atomics: args[0] is the address, then each operand's low and high words.
using PairAtomicUpdate = std::function<void(Emitter& e, Pair updated, Pair old, const std::vector<int>& args)>;

class Selector : private Emitter {
public:
    Selector(const ptx::Module& module, const ptx::Function& fn, const std::vector<std::string>& paramNames,
             const std::string& cudaFile, const MachineSpec& spec, bool addMulThroughFma)
        : m_module(module), m_fn(fn), m_cudaFile(cudaFile), m_spec(spec), m_addMulThroughFma(addMulThroughFma) {
        placeShared();
        placeGlobals();
        placeLocals();
        describeParams(paramNames);
        findPointers();
        findPairs();
        inferWideRegisters();
        findConstants();
    }

    Selection run();

private:
    // ---- errors -------------------------------------------------------------------------------------
    [[noreturn]] void fail(const std::string& msg) const {
        Diagnostic d{m_cudaFile, 0, 0, msg};
        if (m_in) {
            d.line = m_in->cudaLoc.line;
            d.column = m_in->cudaLoc.column;
            d.message = msg + " (PTX line " + std::to_string(m_in->ptxLine) + ": " + m_in->opcode + ")";
        }
        throw DiagnosticError(d);
    }

    // ---- module facts -------------------------------------------------------------------------------
    void placeShared();
    void placeGlobals();
    void placeLocals();
    void frameBase(int rd);
    bool isGlobalSymbol(const std::string& name) const;

    // Pointer parameters come from the mangled signature (extern "C" kernels: every .u64 is a pointer).
    void describeParams(const std::vector<std::string>& names);

    // The 64-bit registers that addresses are computed in: the base of every memory access, and what adds,
    // moves and shifts into them. Only these can hold word addresses; any other 64-bit value is data.
    // m_narrowAddressRegs: those that byte and halfword accesses are computed from.
    void findAddressRegisters();
    // Adds to `regs` the registers they are computed from, and the pointers they are compared with.
    void addSources(std::set<std::string>& regs) const;

    // Fixpoint over the function: which 64-bit registers hold word addresses, and into which memory.
    void inferWideRegisters();

    // Registers that would hold word addresses but take in a byte offset (a pointer plus a char index, or an
    // offset that is not a multiple of 4) and lead to byte or halfword accesses: they hold byte addresses
    // instead (m_byteAddresses). True when it found new ones, so that the fixpoint runs again.
    bool findByteAddresses();
    bool isByteAddress(const Operand& o) const;

    // ---- 64-bit integers (SelectionPairs.cpp) ---------------------------------------------------------
    // Registers that hold pointers (m_pointers), and the 64-bit data registers whose high words matter
    // (m_pairs): those are held in two machine registers, the others as their low word.
    void findPointers();
    void findPairs();
    bool isPair(const Operand& o) const;
    Pair pairRegs(const std::string& name);
    PairB pairOperand(const Operand& o);
    Pair pairIn(const Operand& o);
    void setPair(Pair rd, PairB value);
    void pairOperation(const ptx::Instruction& in);
    void pairBitwise(const ptx::Instruction& in, Pair rd);
    void pairConvert(const ptx::Instruction& in, Pair rd);
    void pairDivision(const ptx::Instruction& in, Pair rd);
    void wideProduct(const ptx::Instruction& in, Pair rd);
    void pairCompare(const ptx::Instruction& in);
    void pairCount(const ptx::Instruction& in);
    void pairMemory(const ptx::Instruction& in, int base, uint32_t offset, bool shared);
    void packedPair(const ptx::Instruction& in, bool pack, const std::vector<Operand>& words);
    void widenedLoad(const ptx::Instruction& in);

    // 32-bit registers written once, by a mov of an immediate (prmt's selector arrives that way).
    void findConstants();
    std::optional<int64_t> constantOf(const Operand& o) const;

    Wide wideOf(const Operand& o) const;

    Wide wideDef(const ptx::Instruction& in) const;

    // ---- blocks -------------------------------------------------------------------------------------
    VBlock& block() { return m_out.program.blocks[size_t(m_cur)]; }
    int newBlock() override;
    int labelBlock(const std::string& label);
    void enterLabel(const std::string& label);
    void branch(int cond, int taken, int notTaken) override { terminate(Opcode::Br, taken, notTaken, cond); }
    void jump(int target) override { terminate(Opcode::Jmp, target); }
    void enter(int b) override { m_cur = b; }
    void terminate(Opcode op, int target = -1, int elseTarget = -1, int cond = kZeroReg);

    // ---- registers ----------------------------------------------------------------------------------
    int vreg(const std::string& name);
    int temp() override { return m_nextVreg++; }

    VInst located(Opcode op) const;

    // The second source operand, evaluated (and any conversion emitted) before its instruction.
    B bOf(const Operand& o);

    // Operands must be evaluated before the call: evaluating them may emit conversions.
    void emit(Opcode op, int rd, int rs1, B b = {}, int rc = kZeroReg) override;
    void emitSymbol(int rd, const std::string& symbol);

    // A 32-bit value in a register (immediates get a mov).
    int reg32(const Operand& o);
    int asWord(const Operand& o);
    int asByte(const Operand& o);

    // ---- instructions -------------------------------------------------------------------------------
    void statement(const ptx::Instruction& in);

    void branch(const ptx::Instruction& in);

    // `@%p instr`: the instruction gets a block of its own that only the lanes with the predicate enter.
    void guarded(const ptx::Instruction& in);

    void requireInt32(const ptx::Instruction& in);
    [[noreturn]] void failGlobal(const ptx::GlobalVariable& global) const;
    std::string globalName(const std::string& symbol) const;

    void select(const ptx::Instruction& in);

    // ---- 8- and 16-bit values ------------------------------------------------------------------------
    // Clang narrows arithmetic it can prove small (threadIdx.x / 3 becomes 16-bit). Such a value lives in
    // a 32-bit register whose bits above its width are undefined: operations whose low bits depend only
    // on the operands' low bits run as they are; the others (right shifts, division, compares, min/max,
    // high products) see the operands zero- or sign-extended first.
    static int bitsOf(const std::string& type);
    int extend(int r, int bits, bool isSigned);
    // A name for a 32-bit register the rewritten instruction reads.
    Operand extended(const Operand& o, int bits, bool isSigned);

    void narrowConvert(const ptx::Instruction& in);

    void narrowOperation(const ptx::Instruction& in);

    // Operations the machine has no opcode for, as instruction sequences (Sequences.h).
    bool expandSequence(const ptx::Instruction& in);

    std::optional<Opcode> aluOpcode(const ptx::Instruction& in) const;

    void loadParam(const ptx::Instruction& in);

    void move(const ptx::Instruction& in);
    void packedMove(const ptx::Instruction& in);

    void compare(const ptx::Instruction& in);
    void laneMask(int rd, const std::string& which);
    static bool isClockRegister(const std::string& name);
    bool readsClock() const;
    void readClock(const Operand& destination);

    // Address arithmetic on 64-bit registers, in words or bytes (see Rep).
    void wide(const ptx::Instruction& in);
    void lowWord(const ptx::Instruction& in);
    void symbolAddress(int rd, const std::string& symbol, Rep dst);

    int sharedBase(const std::string& symbol);

    // [reg + offset] or [symbol + offset] -> (rs1, imm in words), and which memory it is in.
    std::pair<int, uint32_t> address(const Operand& a, Space& space);

    void memory(const ptx::Instruction& in);
    // The call stack's qgpu.save / qgpu.restore (CallStack.h) and the warning of a full stack.
    void callStackSlot(const ptx::Instruction& in);
    void callStackFull();
    static Space spaceOf(const ptx::Instruction& in);
    // The memory an access goes to: local memory is a frame in global memory, and a pointer whose memory is
    // unknown (read back from memory, as at -O0) is global in a kernel without shared memory.
    Space resolvedSpace(Space space) const;
    bool isLocalSymbol(const std::string& name) const;

    // Bytes and halfwords: bool, char and short elements, and what Clang narrows `x >> 24` of an int to.
    // Where the byte sits in its word is known at compile time (fixedNarrow: a word address plus a constant
    // offset) or computed at run time from a byte address (computedNarrow).
    struct NarrowAccess {
        const ptx::Instruction& in;
        const Operand& data;  // the loaded register or the stored value
        Operand at;           // [base + offset in bytes]
        Space space;
        int bytes;  // 1 or 2
        bool load;
    };
    void narrowMemory(const ptx::Instruction& in);
    void fixedNarrow(const NarrowAccess& access);
    void computedNarrow(const NarrowAccess& access);

    // The elements of a `{%r1, %r2}` operand (`_` is an element a load discards), or the operand itself.
    std::vector<Operand> vectorElements(const Operand& v);

    void shuffle(const ptx::Instruction& in);
    void refuseWiderThanTheWarp(const std::string& mode, int width, const ptx::Operand& b) const;

    // ---- floats (SelectionFloat.cpp) ---------------------------------------------------------------
    static bool isFloatOperation(const ptx::Instruction& in);
    void floatOperation(const ptx::Instruction& in);
    void floatArithmetic(const ptx::Instruction& in, int rd);
    int zeroForHugeDivisor(int dividend, int divisor);
    void floatTest(const ptx::Instruction& in);
    void floatCompare(const ptx::Instruction& in);
    void floatConvert(const ptx::Instruction& in);
    void wideConvert(const ptx::Instruction& in, bool toFloat);
    void floatAtomicAdd(int rd, int address, int value, bool shared);
    // A 64-bit atom or red (add, exch, cas, min, max, and, or, xor) at the word address in `address`.
    void pairAtomic(const ptx::Instruction& in, int address, bool shared);
    // An atom or red other than the integer add (SelectionAtomics.cpp): exch, cas, min, max, inc, dec, and,
    // or, xor, at the word address held in `address`.
    void integerAtomic(const ptx::Instruction& in, int rd, int address, bool shared);
    // rd = the old word; the active lanes act in ascending lane order, each one's read, update and write
    // together (a warp is not interrupted between them).
    void serializedAtomic(const std::string& name, bool shared, const AtomicUpdate& update, int rd,
                          const std::vector<int>& args);

    // A routine: machine code emitted once, after the kernel's own, and entered from each use. Its
    // arguments and result live in registers of its own; the return index says which use to go back to.
    using RoutineBody = std::function<void(Emitter& e, int rd, const std::vector<int>& args)>;
    struct Routine {
        RoutineBody body;
        int entry = -1, result = -1, returnIndex = -1;
        std::vector<int> args, returns;
    };
    // rd = the routine `name` applied to args (body writes it the first time the routine is used).
    void callRoutine(const std::string& name, RoutineBody body, int rd, const std::vector<int>& args);
    // A routine with a 64-bit result: it writes the high word into an argument register of its own, after
    // the others.
    using PairRoutineBody = std::function<void(Emitter& e, Pair rd, const std::vector<int>& args)>;
    void callPairRoutine(const std::string& name, PairRoutineBody body, Pair rd, std::vector<int> args);
    void emitRoutines();

    const ptx::Module& m_module;
    const ptx::Function& m_fn;
    std::string m_cudaFile;
    MachineSpec m_spec;
    Selection m_out;
    std::map<std::string, int> m_paramIndex, m_vregs, m_labelBlocks;
    std::map<std::string, Wide> m_wide;
    std::map<std::string, int64_t> m_constants;
    std::set<std::string> m_pointers, m_pairs, m_addressRegs, m_narrowAddressRegs, m_byteAddresses;
    std::map<std::string, Routine> m_routines;
    bool m_addMulThroughFma;
    int m_nextVreg = 0, m_cur = 0;
    const ptx::Instruction* m_in = nullptr;
};

}  // namespace qgpu::lowering
