// 64-bit integer arithmetic on pairs of 32-bit machine registers (Sequences.h): each exact to the PTX
// definition, mod 2^64. Results are computed in fresh registers and copied last, so a destination may be
// one of the operands.
#include <algorithm>
#include <tuple>

#include "FloatSequences.h"
#include "SequenceHelpers.h"
#include "Sequences.h"

namespace qgpu::lowering {
namespace {

void copyPair(Emitter& e, Pair rd, Pair from) {
    copy(e, rd.lo, from.lo);
    copy(e, rd.hi, from.hi);
}

// (a << k) | (b >> (32 - k)) for a constant 0 < k < 32: the high word of a left shift.
int funnelLeft(Emitter& e, int a, int b, int k) {
    return op(e, Opcode::Or, op(e, Opcode::Shl, a, imm(k)), reg(op(e, Opcode::Shr, b, imm(32 - k))));
}

void shiftByConstant(Emitter& e, Pair rd, Pair a, uint32_t k, Shift kind) {
    k = std::min<uint32_t>(k, 64);
    Opcode right = kind == Shift::RightArith ? Opcode::Sra : Opcode::Shr;
    Pair out;
    if (k == 0) {
        out = {mov(e, reg(a.lo)), mov(e, reg(a.hi))};
    } else if (kind == Shift::Left) {
        out.lo = k >= 32 ? mov(e, imm(0)) : op(e, Opcode::Shl, a.lo, imm(k));
        out.hi = k >= 32 ? op(e, Opcode::Shl, a.lo, imm(k - 32)) : funnelLeft(e, a.hi, a.lo, int(k));
    } else if (k >= 32) {  // the machine's shr by 32 gives 0, its sra the sign
        out = {op(e, right, a.hi, imm(k - 32)), op(e, right, a.hi, imm(32))};
    } else {
        out.lo = op(e, Opcode::Or, op(e, Opcode::Shr, a.lo, imm(k)), reg(op(e, Opcode::Shl, a.hi, imm(32 - k))));
        out.hi = op(e, right, a.hi, imm(k));
    }
    copyPair(e, rd, out);
}

// Unsigned shift-subtract division of n by d (d != 0), one quotient bit per iteration: the pair (r:q) is
// shifted left, and d subtracted from r where it fits.
void unsignedDividePair(Emitter& e, Pair n, Pair d, Pair& q, Pair& r) {
    q = {mov(e, reg(n.lo)), mov(e, reg(n.hi))};
    r = {mov(e, imm(0)), mov(e, imm(0))};
    int left = mov(e, imm(64));
    int loop = e.newBlock(), done = e.newBlock();
    e.jump(loop);
    e.enter(loop);
    e.emit(Opcode::Or, r.hi, op(e, Opcode::Shl, r.hi, imm(1)), reg(op(e, Opcode::Shr, r.lo, imm(31))));
    e.emit(Opcode::Or, r.lo, op(e, Opcode::Shl, r.lo, imm(1)), reg(op(e, Opcode::Shr, q.hi, imm(31))));
    e.emit(Opcode::Or, q.hi, op(e, Opcode::Shl, q.hi, imm(1)), reg(op(e, Opcode::Shr, q.lo, imm(31))));
    e.emit(Opcode::Shl, q.lo, q.lo, imm(1));
    int fits = comparePair(e, "hs", r, pairB(d), false);
    Pair less{e.temp(), e.temp()};
    addPair(e, less, r, pairB(d), true);
    e.emit(Opcode::Sel, r.lo, less.lo, reg(r.lo), fits);
    e.emit(Opcode::Sel, r.hi, less.hi, reg(r.hi), fits);
    e.emit(Opcode::Or, q.lo, q.lo, reg(fits));
    e.emit(Opcode::Sub, left, left, imm(1));
    e.branch(op(e, Opcode::SetNe, left, imm(0)), loop, done);
    e.enter(done);
}

// |x| and x's sign (0 or all ones).
std::pair<Pair, int> magnitudePair(Emitter& e, Pair x) {
    int sign = op(e, Opcode::Sra, x.hi, imm(31));
    Pair flipped{op(e, Opcode::Xor, x.lo, reg(sign)), op(e, Opcode::Xor, x.hi, reg(sign))};
    Pair out{e.temp(), e.temp()};
    addPair(e, out, flipped, {reg(sign), reg(sign)}, true);
    return {out, sign};
}

Pair applySignPair(Emitter& e, Pair x, int sign) {
    Pair flipped{op(e, Opcode::Xor, x.lo, reg(sign)), op(e, Opcode::Xor, x.hi, reg(sign))};
    Pair out{e.temp(), e.temp()};
    addPair(e, out, flipped, {reg(sign), reg(sign)}, true);
    return out;
}

}  // namespace

void addPair(Emitter& e, Pair rd, Pair a, PairB b, bool subtract) {
    Opcode o = subtract ? Opcode::Sub : Opcode::Add;
    int lo = op(e, o, a.lo, b.lo);
    // The carry out of the low words (lo < a.lo), or the borrow (a.lo < b.lo).
    int carry = subtract ? op(e, Opcode::SetLtU, a.lo, b.lo) : op(e, Opcode::SetLtU, lo, reg(a.lo));
    int hi = op(e, o, op(e, o, a.hi, b.hi), reg(carry));
    copyPair(e, rd, {lo, hi});
}

void mulPair(Emitter& e, Pair rd, Pair a, PairB b) {
    int lo = op(e, Opcode::Mul, a.lo, b.lo);
    int hi = e.temp();
    mulHigh(e, hi, a.lo, b.lo, false);
    if (!b.hi.isImm || b.hi.value) e.emit(Opcode::Add, hi, hi, reg(op(e, Opcode::Mul, a.lo, b.hi)));
    e.emit(Opcode::Add, hi, hi, reg(op(e, Opcode::Mul, a.hi, b.lo)));
    copyPair(e, rd, {lo, hi});
}

void shiftPair(Emitter& e, Pair rd, Pair a, B amount, Shift kind) {
    if (amount.isImm) return shiftByConstant(e, rd, a, amount.value, kind);
    // Below 32 the words exchange bits; from 32 one word moves into the other. The machine's shifts give 0
    // (sra: the sign) from 32 on, which covers amounts past 64 and the 32 - 0 of a zero shift.
    int s = amount.reg, small = op(e, Opcode::SetLtU, s, imm(32));
    int rest = op(e, Opcode::Sub, mov(e, imm(32)), reg(s)), over = op(e, Opcode::Sub, s, imm(32));
    Pair out;
    if (kind == Shift::Left) {
        int hiSmall = op(e, Opcode::Or, op(e, Opcode::Shl, a.hi, reg(s)), reg(op(e, Opcode::Shr, a.lo, reg(rest))));
        out.lo = sel(e, small, op(e, Opcode::Shl, a.lo, reg(s)), imm(0));
        out.hi = sel(e, small, hiSmall, reg(op(e, Opcode::Shl, a.lo, reg(over))));
    } else {
        Opcode right = kind == Shift::RightArith ? Opcode::Sra : Opcode::Shr;
        int loSmall = op(e, Opcode::Or, op(e, Opcode::Shr, a.lo, reg(s)), reg(op(e, Opcode::Shl, a.hi, reg(rest))));
        int fill = op(e, right, a.hi, imm(32));
        out.lo = sel(e, small, loSmall, reg(op(e, right, a.hi, reg(over))));
        out.hi = sel(e, small, op(e, right, a.hi, reg(s)), reg(fill));
    }
    copyPair(e, rd, out);
}

// The 128-bit product from four 64-bit products of words: a0 b0, a0 b1, a1 b0, a1 b1; its high half.
void mulHighPair(Emitter& e, Pair rd, Pair a, Pair b, bool isSigned) {
    auto product = [&](int x, int y) {
        Pair p{op(e, Opcode::Mul, x, reg(y)), e.temp()};
        mulHigh(e, p.hi, x, reg(y), false);
        return p;
    };
    Pair p00 = product(a.lo, b.lo), p01 = product(a.lo, b.hi), p10 = product(a.hi, b.lo), p11 = product(a.hi, b.hi);
    Pair middle{e.temp(), e.temp()}, high{e.temp(), e.temp()};  // bits 32..95 (with the carry), 64..127
    addPair(e, middle, {p00.hi, kZeroReg}, {reg(p01.lo), imm(0)}, false);
    addPair(e, middle, middle, {reg(p10.lo), imm(0)}, false);
    addPair(e, high, p11, {reg(p01.hi), imm(0)}, false);
    addPair(e, high, high, {reg(p10.hi), imm(0)}, false);
    addPair(e, high, high, {reg(middle.hi), imm(0)}, false);
    if (isSigned) {  // signed = unsigned - (a < 0 ? b : 0) - (b < 0 ? a : 0), mod 2^64
        int aSign = op(e, Opcode::Sra, a.hi, imm(31)), bSign = op(e, Opcode::Sra, b.hi, imm(31));
        addPair(e, high, high, {reg(op(e, Opcode::And, b.lo, reg(aSign))), reg(op(e, Opcode::And, b.hi, reg(aSign)))},
                true);
        addPair(e, high, high, {reg(op(e, Opcode::And, a.lo, reg(bSign))), reg(op(e, Opcode::And, a.hi, reg(bSign)))},
                true);
    }
    copyPair(e, rd, high);
}

int comparePair(Emitter& e, const std::string& cmp, Pair a, PairB b, bool isSigned) {
    int sameHigh = op(e, Opcode::SetEq, a.hi, b.hi);
    if (cmp == "eq" || cmp == "ne") {
        int both = op(e, Opcode::And, sameHigh, reg(op(e, Opcode::SetEq, a.lo, b.lo)));
        return cmp == "eq" ? both : op(e, Opcode::Xor, both, imm(1));
    }
    // The high words decide unless they are equal; then the low words, unsigned.
    bool less = cmp == "lt" || cmp == "le" || cmp == "lo" || cmp == "ls";
    bool orEqual = cmp == "le" || cmp == "ge" || cmp == "ls" || cmp == "hs";
    Opcode high = less ? (isSigned ? Opcode::SetLt : Opcode::SetLtU) : (isSigned ? Opcode::SetGt : Opcode::SetGtU);
    Opcode low = less ? (orEqual ? Opcode::SetLeU : Opcode::SetLtU) : (orEqual ? Opcode::SetGeU : Opcode::SetGtU);
    int byLow = op(e, Opcode::And, sameHigh, reg(op(e, low, a.lo, b.lo)));
    return op(e, Opcode::Or, op(e, high, a.hi, b.hi), reg(byLow));
}

void dividePair(Emitter& e, Pair rd, Pair a, Pair b, bool isSigned, bool remainder) {
    int byZero = op(e, Opcode::SetEq, op(e, Opcode::Or, b.lo, reg(b.hi)), imm(0));
    e.emit(Opcode::Warn, kZeroReg, kZeroReg, imm(int64_t(MachineWarning::DivisionByZero)), byZero);
    if (isSigned) {  // INT64_MIN / -1: the magnitudes give INT64_MIN and 0, as for 32 bits
        int isMin = comparePair(e, "eq", a, {imm(0), imm(0x80000000u)}, false);
        int minusOne = comparePair(e, "eq", b, {imm(0xffffffffu), imm(0xffffffffu)}, false);
        e.emit(Opcode::Warn, kZeroReg, kZeroReg, imm(int64_t(MachineWarning::DivisionOverflow)),
               op(e, Opcode::And, isMin, reg(minusOne)));
    }
    auto [n, nSign] = isSigned ? magnitudePair(e, a) : std::pair{a, kZeroReg};
    auto [d, dSign] = isSigned ? magnitudePair(e, b) : std::pair{b, kZeroReg};
    Pair q, r;
    unsignedDividePair(e, n, {op(e, Opcode::Or, d.lo, reg(byZero)), d.hi}, q, r);  // 0 divides as 1
    Pair result = remainder ? r : q;
    if (isSigned) result = applySignPair(e, result, remainder ? nSign : op(e, Opcode::Xor, nSign, reg(dSign)));
    int ones = op(e, Opcode::Sub, kZeroReg, reg(byZero));  // a zero divisor gives all ones
    copyPair(e, rd, {op(e, Opcode::Or, result.lo, reg(ones)), op(e, Opcode::Or, result.hi, reg(ones))});
}

// The magnitude normalised so that its top set bit is bit 63 when the high word is not 0: the top word with
// a sticky bit for what lies below it converts with the rounding of the whole, and the exponent then grows
// by the shift.
void pairToFloat(Emitter& e, int rd, Pair a, bool isSigned, Rounding rounding) {
    Pair m = a;
    int sign = kZeroReg;
    if (isSigned) std::tie(m, sign) = magnitudePair(e, a);
    int highZero = op(e, Opcode::SetEq, m.hi, imm(0)), wide = op(e, Opcode::Sub, highZero, imm(1));  // 0 or ones
    int zeros = e.temp();
    leadingZeros(e, zeros, m.hi);
    Pair shifted{e.temp(), e.temp()};
    shiftPair(e, shifted, m, reg(op(e, Opcode::And, zeros, reg(wide))), Shift::Left);
    int sticky = op(e, Opcode::And, op(e, Opcode::SetNe, shifted.lo, imm(0)), reg(wide));
    int top = sel(e, highZero, m.lo, reg(op(e, Opcode::Or, shifted.hi, reg(sticky))));
    int f = e.temp();
    if (isSigned && (rounding == Rounding::Down || rounding == Rounding::Up)) {
        // Toward -inf a negative value's magnitude rounds away from zero and a positive one's toward it;
        // toward +inf the other way round.
        int towardZero = e.temp(), awayFromZero = e.temp();
        intToFloat(e, towardZero, top, false, Rounding::Zero);
        intToFloat(e, awayFromZero, top, false, Rounding::Up);
        f = rounding == Rounding::Down ? sel(e, sign, awayFromZero, reg(towardZero))
                                       : sel(e, sign, towardZero, reg(awayFromZero));
    } else {
        intToFloat(e, f, top, false, rounding);
    }
    int scale = op(e, Opcode::And, op(e, Opcode::Sub, mov(e, imm(32)), reg(zeros)), reg(wide));
    int result = op(e, Opcode::Add, f, reg(op(e, Opcode::Shl, scale, imm(23))));
    e.emit(Opcode::Or, rd, result, reg(op(e, Opcode::And, sign, imm(0x80000000u))));
}

// Truncation: the significand shifted into place; |a| from 2^63 (2^64 unsigned) on, infinities included,
// saturate, negative values give 0 unsigned, and NaN gives 0.
void floatToPair(Emitter& e, Pair rd, int a, bool isSigned) {
    int exponent = op(e, Opcode::And, op(e, Opcode::Shr, a, imm(23)), imm(0xff));
    int significand = op(e, Opcode::Or, op(e, Opcode::And, a, imm(0x7fffff)), imm(0x800000));
    // Below 2^23 the significand moves right (a shift from 32 on gives 0), from there left; the other shift's
    // amount wraps around to more than 64 and gives 0.
    int right = op(e, Opcode::Shr, significand, reg(op(e, Opcode::Sub, mov(e, imm(150)), reg(exponent))));
    Pair left{e.temp(), e.temp()};
    shiftPair(e, left, {significand, kZeroReg}, reg(op(e, Opcode::Sub, exponent, imm(150))), Shift::Left);
    Pair magnitude{op(e, Opcode::Or, right, reg(left.lo)), left.hi};
    int negative = op(e, Opcode::Shr, a, imm(31));
    int huge = op(e, Opcode::SetGeU, exponent, imm(isSigned ? 190 : 191));
    Pair result{e.temp(), e.temp()};
    if (isSigned) {
        addPair(e, result, {kZeroReg, kZeroReg}, pairB(magnitude), true);
        result = {sel(e, negative, result.lo, reg(magnitude.lo)), sel(e, negative, result.hi, reg(magnitude.hi))};
        int limitHigh = sel(e, negative, mov(e, imm(0x80000000u)), imm(0x7fffffff));
        int limitLow = op(e, Opcode::Sub, negative, imm(1));  // 0 below, all ones above
        result = {sel(e, huge, limitLow, reg(result.lo)), sel(e, huge, limitHigh, reg(result.hi))};
    } else {
        int ones = mov(e, imm(0xffffffffu));
        result = {sel(e, huge, ones, reg(magnitude.lo)), sel(e, huge, ones, reg(magnitude.hi))};
        result = {sel(e, negative, kZeroReg, reg(result.lo)), sel(e, negative, kZeroReg, reg(result.hi))};
    }
    int nan = op(e, Opcode::SetGtU, op(e, Opcode::And, a, imm(0x7fffffff)), imm(0x7f800000));
    copyPair(e, rd, {sel(e, nan, kZeroReg, reg(result.lo)), sel(e, nan, kZeroReg, reg(result.hi))});
}

}  // namespace qgpu::lowering
