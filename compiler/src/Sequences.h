// Machine-instruction sequences for PTX operations the machine has no opcode for: mul.hi, div and rem,
// popc, clz, brev, bfe, bfi, prmt. Each is exact to the PTX definition (docs/lowering.md lists the costs).
// Private to the compiler library.
#pragma once

#include <cstdint>
#include <string>

#include "VirtualProgram.h"

namespace qgpu::lowering {

// The b operand of a machine instruction: a 32-bit immediate or a virtual register.
struct B {
    bool isImm = false;
    uint32_t value = 0;
    int reg = kZeroReg;
};
inline B imm(int64_t v) { return {true, uint32_t(v), kZeroReg}; }
inline B reg(int r) { return {false, 0, r}; }

// Where a sequence is written: the selector's current block, new blocks, and their terminators.
class Emitter {
public:
    virtual ~Emitter() = default;
    virtual int temp() = 0;
    virtual void emit(Opcode op, int rd, int rs1, B b = {}, int rc = kZeroReg) = 0;
    virtual int newBlock() = 0;
    virtual void branch(int cond, int taken, int notTaken) = 0;  // ends the current block
    virtual void jump(int target) = 0;                           // ends the current block
    virtual void enter(int block) = 0;                           // what follows goes into `block`
};

// rd = the high 32 bits of the 64-bit product a * b (signed or unsigned).
void mulHigh(Emitter& e, int rd, int a, B b, bool isSigned);
// rd = a / b or a % b (C semantics, rounding towards zero) with the machine's policies: a divisor of 0
// gives all ones and records a `divzero` warning; INT_MIN / -1 gives INT_MIN (remainder 0) and records
// `divoverflow`. Shift-subtract in two loops, one iteration per quotient bit that can be set.
void divide(Emitter& e, int rd, int a, B b, bool isSigned, bool remainder);
void populationCount(Emitter& e, int rd, int a);
void leadingZeros(Emitter& e, int rd, int a);
void bitReverse(Emitter& e, int rd, int a);
// PTX bfe: len bits of a from pos (both taken mod 256), zero- or sign-extended.
void bitFieldExtract(Emitter& e, int rd, int a, B pos, B len, bool isSigned);
// PTX bfi: base with its len bits from pos replaced by the low bits of a.
void bitFieldInsert(Emitter& e, int rd, int a, int base, B pos, B len);
// PTX shf: the 64-bit pair b:a shifted left (the high word kept) or right (the low word kept) by the amount
// mod 32 (wrap) or clamped to 32 (clamp). With a == b it is a rotate.
void funnelShift(Emitter& e, int rd, int a, int b, B amount, bool left, bool clamp);
// PTX prmt in its default mode: bytes of {b, a} picked (or sign-replicated) by the selector's nibbles.
void bytePermute(Emitter& e, int rd, int a, int b, uint32_t selector);

// A 64-bit integer in two machine registers (PTX's .s64/.u64/.b64 data), and a 64-bit operand: registers
// or an immediate's two words.
struct Pair {
    int lo = kZeroReg, hi = kZeroReg;
};
struct PairB {
    B lo, hi;
};
inline PairB pairB(Pair p) { return {reg(p.lo), reg(p.hi)}; }

// rd = a + b or a - b, mod 2^64.
void addPair(Emitter& e, Pair rd, Pair a, PairB b, bool subtract);
// rd = the low 64 bits of a * b.
void mulPair(Emitter& e, Pair rd, Pair a, PairB b);
// rd = the high 64 bits of the 128-bit product a * b.
void mulHighPair(Emitter& e, Pair rd, Pair a, Pair b, bool isSigned);
// rd = a shifted by `amount` (PTX: amounts above 64 shift as 64), left, right, or right with the sign.
enum class Shift { Left, Right, RightArith };
void shiftPair(Emitter& e, Pair rd, Pair a, B amount, Shift kind);
// 1 when `a cmp b` holds (cmp: PTX's eq, ne, lt, le, gt, ge; lo, ls, hi, hs), else 0.
int comparePair(Emitter& e, const std::string& cmp, Pair a, PairB b, bool isSigned);
// rd = a / b or a % b with the 32-bit division's policies (divide).
void dividePair(Emitter& e, Pair rd, Pair a, Pair b, bool isSigned, bool remainder);

}  // namespace qgpu::lowering
