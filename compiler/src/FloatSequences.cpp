#include "FloatSequences.h"

#include "SequenceHelpers.h"

namespace qgpu::lowering {
namespace {

constexpr uint32_t kSign = 0x80000000u, kMagnitude = 0x7fffffffu, kInfinity = 0x7f800000u;
constexpr uint32_t kMaxFinite = 0x7f7fffffu, kHidden = 0x800000u, kFraction = 0x7fffffu;
constexpr uint32_t kTwoTo23 = 0x4b000000u;  // the float 2^23: from here on every float is an integer
constexpr uint32_t kOne = 0x3f800000u;      // the float 1.0

// Working values: a significand as a fixed-point number w in [2^30, 2^31) (24 significand bits, a round
// bit and six bits whose lowest ORs in everything shifted out below it), with the value
// w * 2^(exponent - 157), so that exponent is the biased exponent of the result.
constexpr int kWorkingShift = 7;                          // w's bits below the significand's lowest
constexpr int kExponentOfOne = 127 + 23 + kWorkingShift;  // 157: the exponent of an integer w

int exponentField(Emitter& e, int x) { return op(e, Opcode::Shr, op(e, Opcode::Shl, x, imm(1)), imm(24)); }

// The 24-bit significand: the fraction with the hidden bit when the exponent field is not 0.
int significand(Emitter& e, int x, int field) {
    int hidden = op(e, Opcode::Shl, op(e, Opcode::MinU, field, imm(1)), imm(23));
    return op(e, Opcode::Or, op(e, Opcode::And, x, imm(kFraction)), reg(hidden));
}

// x, or a zero of x's sign when x is subnormal and the instruction flushes (.ftz).
int flushInput(Emitter& e, int x, bool flush) {
    if (!flush) return x;
    int tiny = op(e, Opcode::SetLtU, op(e, Opcode::And, x, imm(kMagnitude)), imm(kHidden));
    return sel(e, tiny, op(e, Opcode::And, x, imm(kSign)), reg(x));
}

int isNan(Emitter& e, int x) { return op(e, Opcode::SetGtU, op(e, Opcode::And, x, imm(kMagnitude)), imm(kInfinity)); }

// rd = value, or the canonical NaN where nan is 1.
void canonicalIfNan(Emitter& e, int rd, int nan, int value) {
    e.emit(Opcode::Sel, rd, value, imm(kCanonicalNan), op(e, Opcode::SetEq, nan, imm(0)));
}

// x >> k with the bits shifted out ORed into bit 0 (from k = 32 on only that bit is left).
int shiftRightSticky(Emitter& e, int x, int k) {
    int mask = op(e, Opcode::Sub, op(e, Opcode::Shl, mov(e, imm(1)), reg(k)), imm(1));
    int sticky = op(e, Opcode::SetNe, op(e, Opcode::And, x, reg(mask)), imm(0));
    return op(e, Opcode::Or, op(e, Opcode::Shr, x, reg(k)), reg(sticky));
}

// 1 where the rounding moves a value of this sign (0 or the sign bit) away from zero: .rp a positive
// value, .rm a negative one.
int roundsAway(Emitter& e, int sign, Rounding rounding) {
    return op(e, rounding == Rounding::Up ? Opcode::SetEq : Opcode::SetNe, sign, imm(0));
}

// w (with kWorkingShift fraction bits, below 2^31) plus what makes w >> kWorkingShift rounded as asked.
int roundFixedPoint(Emitter& e, int w, int sign, Rounding rounding) {
    if (rounding == Rounding::Zero) return w;
    if (rounding == Rounding::Nearest) {  // half - 1, plus 1 when the kept lowest bit is odd: ties to even
        int odd = op(e, Opcode::And, op(e, Opcode::Shr, w, imm(kWorkingShift)), imm(1));
        return op(e, Opcode::Add, w, reg(op(e, Opcode::Add, odd, imm(0x3f))));
    }
    int away = roundsAway(e, sign, rounding);  // anything below the kept bits rounds up
    int increment = op(e, Opcode::And, op(e, Opcode::Sub, kZeroReg, reg(away)), imm(0x7f));
    return op(e, Opcode::Add, w, reg(increment));
}

// rd = the float sign | w * 2^(exponent - 157), rounded. An exponent below 1 first shifts w into the
// subnormal range; past 254 (or by a rounding carry) the result overflows to infinity, or to the largest
// finite float where the rounding goes towards zero.
void roundPack(Emitter& e, int rd, int sign, int exponent, int w, FloatMode mode) {
    int below = op(e, Opcode::Max, op(e, Opcode::Sub, mov(e, imm(1)), reg(exponent)), imm(0));
    w = shiftRightSticky(e, w, below);
    int biased = op(e, Opcode::Max, exponent, imm(1));
    int sig = op(e, Opcode::Shr, roundFixedPoint(e, w, sign, mode.rounding), imm(kWorkingShift));
    // (biased - 1) << 23 plus a significand with its hidden bit set is the encoding: a rounding carry into
    // bit 24 raises the exponent by one, and a subnormal (biased 1, no hidden bit) gets field 0.
    int field = op(e, Opcode::Shl, op(e, Opcode::Sub, biased, imm(1)), imm(23));
    int packed = op(e, Opcode::Add, field, reg(sig));
    B limit = mode.rounding == Rounding::Nearest ? imm(kInfinity)
              : mode.rounding == Rounding::Zero
                  ? imm(kMaxFinite)
                  : reg(op(e, Opcode::Add, roundsAway(e, sign, mode.rounding), imm(kMaxFinite)));
    packed = op(e, Opcode::MinU, packed, limit);
    if (mode.flush) packed = sel(e, op(e, Opcode::SetLtU, packed, imm(kHidden)), kZeroReg, reg(packed));
    e.emit(Opcode::Or, rd, packed, reg(sign));
}

// z (not 0, below 2^(top + 1)) shifted left until bit `top` is set, the exponent lowered to match; both
// are updated in place. Loops of one shift per iteration: by 8 while that fits, then by 1, so a
// normalisation costs a handful of iterations and most cost none.
void normalizeUp(Emitter& e, int z, int exponent, int top) {
    for (int step : {8, 1}) {
        int test = e.newBlock(), shift = e.newBlock(), done = e.newBlock();
        e.jump(test);
        e.enter(test);
        e.branch(op(e, Opcode::SetLtU, z, imm(int64_t(1) << (top + 1 - step))), shift, done);
        e.enter(shift);
        e.emit(Opcode::Shl, z, z, imm(step));
        e.emit(Opcode::Sub, exponent, exponent, imm(step));
        e.jump(test);
        e.enter(done);
    }
}

// rd = v (unsigned, exact or rounded) as a float with the given sign; 0 gives a zero of that sign.
void packInteger(Emitter& e, int rd, int sign, int v, FloatMode mode) {
    int zero = e.newBlock(), nonzero = e.newBlock(), done = e.newBlock();
    e.branch(op(e, Opcode::SetEq, v, imm(0)), zero, nonzero);
    e.enter(zero);
    copy(e, rd, sign);
    e.jump(done);
    e.enter(nonzero);  // bit 31 shifts right once (the lost bit kept as sticky), anything smaller up to bit 30
    int top = op(e, Opcode::Shr, v, imm(31));
    int w = op(e, Opcode::Or, op(e, Opcode::Shr, v, reg(top)), reg(op(e, Opcode::And, v, reg(top))));
    int exponent = op(e, Opcode::Add, top, imm(kExponentOfOne));
    normalizeUp(e, w, exponent, 30);
    roundPack(e, rd, sign, exponent, w, mode);
    e.jump(done);
    e.enter(done);
}

// The operands of a two-operand instruction after .ftz's flush, with their magnitudes and the sign of
// their product or quotient.
struct Operands {
    int a, b, sign, absA, absB;
};
Operands prepare(Emitter& e, int a, int b, bool flush) {
    a = flushInput(e, a, flush);
    b = flushInput(e, b, flush);
    return {a, b, op(e, Opcode::And, op(e, Opcode::Xor, a, reg(b)), imm(kSign)), op(e, Opcode::And, a, imm(kMagnitude)),
            op(e, Opcode::And, b, imm(kMagnitude))};
}

// The exact product of two finite nonzero floats' significands, high * 2^24 + low in [2^46, 2^48) (24-bit
// words, from 12-bit halves), and the sum of their exponents; a subnormal's significand is first shifted
// up to bit 23 and its exponent lowered.
struct Product {
    int high, low, exponent;
};
Product exactProduct(Emitter& e, int a, int b) {
    int ea = exponentField(e, a), ma = significand(e, a, ea);
    ea = op(e, Opcode::Max, ea, imm(1));
    normalizeUp(e, ma, ea, 23);
    int eb = exponentField(e, b), mb = significand(e, b, eb);
    int exponent = op(e, Opcode::Add, ea, reg(op(e, Opcode::Max, eb, imm(1))));
    normalizeUp(e, mb, exponent, 23);
    int al = op(e, Opcode::And, ma, imm(0xfff)), ah = op(e, Opcode::Shr, ma, imm(12));
    int bl = op(e, Opcode::And, mb, imm(0xfff)), bh = op(e, Opcode::Shr, mb, imm(12));
    int middle = op(e, Opcode::Add, op(e, Opcode::Mul, ah, reg(bl)), reg(op(e, Opcode::Mul, al, reg(bh))));
    int low = op(e, Opcode::Add, op(e, Opcode::Mul, al, reg(bl)),
                 reg(op(e, Opcode::Shl, op(e, Opcode::And, middle, imm(0xfff)), imm(12))));
    int high = op(e, Opcode::Add, op(e, Opcode::Mul, ah, reg(bh)), reg(op(e, Opcode::Shr, middle, imm(12))));
    high = op(e, Opcode::Add, high, reg(op(e, Opcode::Shr, low, imm(24))));
    return {high, op(e, Opcode::And, low, imm(0xffffff)), exponent};
}

// |x| as fixed point with kWorkingShift fraction bits, for |x| < 2^23: the significand shifted right by
// 150 - field with sticky.
int smallMagnitude(Emitter& e, int x, int field) {
    int scaled = op(e, Opcode::Shl, significand(e, x, field), imm(kWorkingShift));
    return shiftRightSticky(e, scaled, op(e, Opcode::Sub, mov(e, imm(150)), reg(field)));
}

// The float's order as a signed integer, -0 equal to +0: sign ? -|x| : |x|.
int orderKey(Emitter& e, int x) {
    int sign = op(e, Opcode::Sra, x, imm(31));
    return op(e, Opcode::Sub, op(e, Opcode::Xor, op(e, Opcode::And, x, imm(kMagnitude)), reg(sign)), reg(sign));
}
uint32_t orderKey(uint32_t bits) { return bits & kSign ? 0u - (bits & kMagnitude) : bits; }

// The float's order as a signed integer with -0 below +0: a negative float's magnitude bits flipped.
int totalOrderKey(Emitter& e, int x) {
    return op(e, Opcode::Xor, x, reg(op(e, Opcode::Shr, op(e, Opcode::Sra, x, imm(31)), imm(1))));
}

}  // namespace

uint32_t flushedBits(uint32_t bits, bool flush) { return flush && (bits & kMagnitude) < kHidden ? bits & kSign : bits; }

void floatAdd(Emitter& e, int rd, int a, int b, FloatMode mode) {
    a = flushInput(e, a, mode.flush);
    b = flushInput(e, b, mode.flush);
    int absA = op(e, Opcode::And, a, imm(kMagnitude)), absB = op(e, Opcode::And, b, imm(kMagnitude));
    int special = e.newBlock(), finite = e.newBlock(), done = e.newBlock();
    e.branch(op(e, Opcode::SetGeU, op(e, Opcode::MaxU, absA, reg(absB)), imm(kInfinity)), special, finite);

    e.enter(special);  // an infinity or a NaN: NaN also for infinities of opposite signs
    int nan = op(e, Opcode::SetGtU, op(e, Opcode::MaxU, absA, reg(absB)), imm(kInfinity));
    nan = op(e, Opcode::Or, nan, reg(op(e, Opcode::SetEq, op(e, Opcode::Xor, a, reg(b)), imm(kSign))));
    canonicalIfNan(e, rd, nan, sel(e, op(e, Opcode::SetEq, absA, imm(kInfinity)), a, reg(b)));
    e.jump(done);

    e.enter(finite);  // x is the operand of larger magnitude; y's significand is aligned to x's
    int swap = op(e, Opcode::SetLtU, absA, reg(absB));
    int x = sel(e, swap, b, reg(a)), y = sel(e, swap, a, reg(b));
    int ex = exponentField(e, x), ey = exponentField(e, y);
    int mx = op(e, Opcode::Shl, significand(e, x, ex), imm(kWorkingShift));
    int my = op(e, Opcode::Shl, significand(e, y, ey), imm(kWorkingShift));
    ex = op(e, Opcode::Max, ex, imm(1));
    my = shiftRightSticky(e, my, op(e, Opcode::Sub, ex, reg(op(e, Opcode::Max, ey, imm(1)))));
    int differ = op(e, Opcode::Shr, op(e, Opcode::Xor, x, reg(y)), imm(31));
    int negated =
        op(e, Opcode::Add, op(e, Opcode::Xor, my, reg(op(e, Opcode::Sub, kZeroReg, reg(differ)))), reg(differ));
    int z = op(e, Opcode::Add, mx, reg(negated));
    int sign = op(e, Opcode::And, x, imm(kSign));
    int zero = e.newBlock(), nonzero = e.newBlock();
    e.branch(op(e, Opcode::SetEq, z, imm(0)), zero, nonzero);

    e.enter(zero);  // exact cancellation gives +0 (-0 rounding down); zeros of one sign keep it
    e.emit(Opcode::Sel, rd, mov(e, imm(mode.rounding == Rounding::Down ? kSign : 0)), reg(sign), differ);
    e.jump(done);

    e.enter(nonzero);
    int w = e.temp(), exponent = e.temp();
    int small = e.newBlock(), large = e.newBlock(), pack = e.newBlock();
    e.branch(op(e, Opcode::SetLtU, z, imm(1u << 30)), small, large);
    e.enter(large);  // no cancellation: at most a carry into bit 31
    int carry = op(e, Opcode::Shr, z, imm(31));
    e.emit(Opcode::Or, w, op(e, Opcode::Shr, z, reg(carry)), reg(op(e, Opcode::And, z, reg(carry))));
    e.emit(Opcode::Add, exponent, ex, reg(carry));
    e.jump(pack);
    e.enter(small);  // cancellation (exact: y was shifted by at most one place) or subnormal operands
    copy(e, w, z);
    copy(e, exponent, ex);
    normalizeUp(e, w, exponent, 30);
    e.jump(pack);
    e.enter(pack);
    roundPack(e, rd, sign, exponent, w, mode);
    e.jump(done);
    e.enter(done);
}

void floatMultiply(Emitter& e, int rd, int a0, int b0, FloatMode mode) {
    auto [a, b, sign, absA, absB] = prepare(e, a0, b0, mode.flush);
    int special = e.newBlock(), finite = e.newBlock(), zero = e.newBlock(), nonzero = e.newBlock();
    int done = e.newBlock();
    e.branch(op(e, Opcode::SetGeU, op(e, Opcode::MaxU, absA, reg(absB)), imm(kInfinity)), special, finite);

    e.enter(special);  // an infinity or a NaN: NaN also for infinity times zero
    int nan = op(e, Opcode::SetGtU, op(e, Opcode::MaxU, absA, reg(absB)), imm(kInfinity));
    nan = op(e, Opcode::Or, nan, reg(op(e, Opcode::SetEq, op(e, Opcode::MinU, absA, reg(absB)), imm(0))));
    canonicalIfNan(e, rd, nan, op(e, Opcode::Or, sign, imm(kInfinity)));
    e.jump(done);

    e.enter(finite);
    e.branch(op(e, Opcode::SetEq, op(e, Opcode::MinU, absA, reg(absB)), imm(0)), zero, nonzero);
    e.enter(zero);
    copy(e, rd, sign);
    e.jump(done);

    e.enter(nonzero);
    auto [high, low, exponent] = exactProduct(e, a, b);
    // p is in [2^46, 2^48): w = p >> (16 + top) where top is p's bit 47.
    int top = op(e, Opcode::Shr, high, imm(23));
    int shift = op(e, Opcode::Add, top, imm(16));
    int w = op(e, Opcode::Shr, op(e, Opcode::Shl, high, imm(8)), reg(top));
    w = op(e, Opcode::Or, w, reg(shiftRightSticky(e, low, shift)));
    exponent = op(e, Opcode::Add, exponent, reg(top));
    roundPack(e, rd, sign, op(e, Opcode::Sub, exponent, imm(127)), w, mode);
    e.jump(done);
    e.enter(done);
}

namespace {

// A 64-bit value as two registers, high and low word.
struct Wide64 {
    int hi, lo;
};

// v >> d (0 <= d <= 63) with the bits shifted out ORed into bit 0.
Wide64 shiftRightSticky64(Emitter& e, Wide64 v, int d) {
    int rest = op(e, Opcode::Sub, mov(e, imm(32)), reg(d));  // 32 - d: wraps past 31 for d > 32, giving 0 below
    int lo = op(e, Opcode::Or, op(e, Opcode::Shr, v.lo, reg(d)), reg(op(e, Opcode::Shl, v.hi, reg(rest))));
    int beyond = op(e, Opcode::Max, op(e, Opcode::Sub, d, imm(32)), imm(0));  // d - 32, from d = 32 on
    lo = op(e, Opcode::Or, lo,
            reg(op(e, Opcode::Shr, v.hi, reg(sel(e, op(e, Opcode::SetGeU, d, imm(32)), beyond, imm(32))))));
    int lostLow = op(e, Opcode::And, v.lo, reg(op(e, Opcode::Sub, op(e, Opcode::Shl, mov(e, imm(1)), reg(d)), imm(1))));
    int lostHigh =
        op(e, Opcode::And, v.hi, reg(op(e, Opcode::Sub, op(e, Opcode::Shl, mov(e, imm(1)), reg(beyond)), imm(1))));
    int sticky = op(e, Opcode::SetNe, op(e, Opcode::Or, lostLow, reg(lostHigh)), imm(0));
    return {op(e, Opcode::Shr, v.hi, reg(d)), op(e, Opcode::Or, lo, reg(sticky))};
}

// v (not 0, below 2^62) shifted left in place until bit 61 is set, the exponent lowered to match: by 8
// while that fits, then by 1.
void normalizeUp64(Emitter& e, Wide64 v, int exponent) {
    for (int step : {8, 1}) {
        int test = e.newBlock(), shift = e.newBlock(), done = e.newBlock();
        e.jump(test);
        e.enter(test);
        e.branch(op(e, Opcode::SetLtU, v.hi, imm(int64_t(1) << (30 - step))), shift, done);
        e.enter(shift);
        e.emit(Opcode::Shl, v.hi, v.hi, imm(step));
        e.emit(Opcode::Or, v.hi, v.hi, reg(op(e, Opcode::Shr, v.lo, imm(32 - step))));
        e.emit(Opcode::Shl, v.lo, v.lo, imm(step));
        e.emit(Opcode::Sub, exponent, exponent, imm(step));
        e.jump(test);
        e.enter(done);
    }
}

// rd for an infinite or NaN operand: NaN for a NaN, infinity times zero, or infinities of opposite signs
// meeting; otherwise the infinite product, or c.
void fusedSpecialCase(Emitter& e, int rd, int c, int signP, int absA, int absB, int absC, int largest) {
    int productInfinite = op(e, Opcode::SetEq, op(e, Opcode::MaxU, absA, reg(absB)), imm(kInfinity));
    int nan = op(e, Opcode::SetGtU, largest, imm(kInfinity));
    nan = op(e, Opcode::Or, nan,
             reg(op(e, Opcode::And, productInfinite,
                    reg(op(e, Opcode::SetEq, op(e, Opcode::MinU, absA, reg(absB)), imm(0))))));
    int opposite = op(e, Opcode::And, op(e, Opcode::SetEq, absC, imm(kInfinity)),
                      reg(op(e, Opcode::SetNe, signP, reg(op(e, Opcode::And, c, imm(kSign))))));
    nan = op(e, Opcode::Or, nan, reg(op(e, Opcode::And, productInfinite, reg(opposite))));
    canonicalIfNan(e, rd, nan, sel(e, productInfinite, op(e, Opcode::Or, signP, imm(kInfinity)), reg(c)));
}

// rd for a zero product: c, or a zero when c is one too.
void fusedZeroProduct(Emitter& e, int rd, int c, int signP, int absC, FloatMode mode) {
    int cZero = op(e, Opcode::SetEq, absC, imm(0));
    int sameSign = op(e, Opcode::SetEq, signP, reg(op(e, Opcode::And, c, imm(kSign))));
    int zero = sel(e, sameSign, signP, imm(mode.rounding == Rounding::Down ? kSign : 0));
    e.emit(Opcode::Sel, rd, zero, reg(c), cZero);
}

// The exact product of two finite nonzero floats in a 64-bit window, and its exponent.
struct WindowedProduct {
    Wide64 p;
    int exponent;
};
WindowedProduct productWindow(Emitter& e, int a, int b) {
    auto [high, low, exponentP] = exactProduct(e, a, b);
    int top = op(e, Opcode::Shr, high, imm(23)), up = op(e, Opcode::Xor, top, imm(1));
    high = op(e, Opcode::Or, op(e, Opcode::Shl, high, reg(up)),
              reg(op(e, Opcode::Shr, low, reg(op(e, Opcode::Add, top, imm(23))))));
    low = op(e, Opcode::And, op(e, Opcode::Shl, low, reg(up)), imm(0xffffff));
    exponentP = op(e, Opcode::Add, op(e, Opcode::Sub, exponentP, imm(127)), reg(top));
    // Both operands in a 64-bit window with their top bit at bit 61, so a sum's carry fits; each exponent
    // is that of the window's bits 61..31 read as w.
    Wide64 p{op(e, Opcode::Or, op(e, Opcode::Shl, high, imm(6)), reg(op(e, Opcode::Shr, low, imm(18)))),
             op(e, Opcode::Shl, low, imm(14))};
    return {p, exponentP};
}

// The addend c in the same window: the registers of its high word (the low word is 0) and its exponent,
// set on both paths into the block `join`, which is left for the caller to enter.
struct WindowedAddend {
    int hi, exponent, join;
};
WindowedAddend addendWindow(Emitter& e, int c) {
    int addendHi = e.temp(), exponentC = e.temp(), addend = e.newBlock(), join = e.newBlock();
    e.emit(Opcode::Mov, addendHi, kZeroReg, imm(0));       // the addend's low word is 0
    e.emit(Opcode::Mov, exponentC, kZeroReg, imm(-1000));  // a zero addend: far below, shifted out whole
    e.branch(op(e, Opcode::SetEq, op(e, Opcode::And, c, imm(kMagnitude)), imm(0)), join, addend);
    e.enter(addend);
    int ec = exponentField(e, c), mc = significand(e, c, ec);
    e.emit(Opcode::Max, exponentC, ec, imm(1));
    normalizeUp(e, mc, exponentC, 23);
    e.emit(Opcode::Shl, addendHi, mc, imm(6));
    e.jump(join);
    return {addendHi, exponentC, join};
}

// The product and the addend aligned and added (or subtracted), the sum made nonnegative, with the
// result's sign and exponent.
struct WindowedSum {
    Wide64 sum;
    int sign, exponent;
};
WindowedSum alignAndAdd(Emitter& e, int c, int signP, Wide64 p, int exponentP, int addendHi, int exponentC) {
    int swap = op(e, Opcode::SetGt, exponentC, reg(exponentP));
    int signC = op(e, Opcode::And, c, imm(kSign));
    // The result's sign (bit 31) and whether the operands' signs differ (bit 0), in one register.
    int signs = op(e, Opcode::Or, sel(e, swap, signC, reg(signP)), reg(op(e, Opcode::SetNe, signP, reg(signC))));
    int exponent = op(e, Opcode::Max, exponentP, reg(exponentC));
    int distance = op(e, Opcode::MinU,
                      op(e, Opcode::Max, op(e, Opcode::Sub, exponentP, reg(exponentC)),
                         reg(op(e, Opcode::Sub, exponentC, reg(exponentP)))),
                      imm(63));
    Wide64 big{sel(e, swap, addendHi, reg(p.hi)), sel(e, swap, kZeroReg, reg(p.lo))};
    Wide64 small{sel(e, swap, p.hi, reg(addendHi)), sel(e, swap, p.lo, imm(0))};
    small = shiftRightSticky64(e, small, distance);
    int differ = op(e, Opcode::And, signs, imm(1)), sign = op(e, Opcode::And, signs, imm(kSign));
    // big + small or big - small: the negated small is its two's complement, its borrow the carry's
    int negate = op(e, Opcode::Sub, kZeroReg, reg(differ));
    int smallLo = op(e, Opcode::Add, op(e, Opcode::Xor, small.lo, reg(negate)), reg(differ));
    int smallHi = op(e, Opcode::Xor, small.hi, reg(negate));
    smallHi = op(e, Opcode::Add, smallHi, reg(op(e, Opcode::And, differ, reg(op(e, Opcode::SetEq, small.lo, imm(0))))));
    Wide64 sum{e.temp(), op(e, Opcode::Add, big.lo, reg(smallLo))};
    e.emit(Opcode::Add, sum.hi, big.hi, reg(smallHi));
    e.emit(Opcode::Add, sum.hi, sum.hi, reg(op(e, Opcode::SetLtU, sum.lo, reg(big.lo))));
    // A difference below zero (equal exponents, the smaller on top) is negated, and so is the sign.
    int negative = op(e, Opcode::Shr, sum.hi, imm(31)), flip = op(e, Opcode::Sub, kZeroReg, reg(negative));
    e.emit(Opcode::Xor, sum.lo, sum.lo, reg(flip));
    e.emit(Opcode::Xor, sum.hi, sum.hi, reg(flip));
    e.emit(Opcode::Add, sum.lo, sum.lo, reg(negative));
    e.emit(Opcode::Add, sum.hi, sum.hi, reg(op(e, Opcode::And, negative, reg(op(e, Opcode::SetEq, sum.lo, imm(0))))));
    e.emit(Opcode::Xor, sign, sign, reg(op(e, Opcode::Shl, negative, imm(31))));
    return {sum, sign, exponent};
}

// rd = the sign | the sum, normalised and rounded; both paths end with a jump to done.
void roundSum(Emitter& e, int rd, Wide64 sum, int sign, int exponent, FloatMode mode, int done) {
    int cancelled = e.newBlock(), nonzero = e.newBlock();
    e.branch(op(e, Opcode::SetEq, op(e, Opcode::Or, sum.hi, reg(sum.lo)), imm(0)), cancelled, nonzero);
    e.enter(cancelled);  // exact cancellation gives +0 (-0 rounding down)
    e.emit(Opcode::Mov, rd, kZeroReg, imm(mode.rounding == Rounding::Down ? kSign : 0));
    e.jump(done);
    e.enter(nonzero);  // a carry into bit 62 shifts right once (sticky kept); a cancellation shifts left
    int carry = op(e, Opcode::Shr, sum.hi, imm(30));
    e.emit(Opcode::Or, sum.lo, op(e, Opcode::Shr, sum.lo, reg(carry)),
           reg(op(e, Opcode::Or, op(e, Opcode::Shl, sum.hi, reg(op(e, Opcode::Sub, mov(e, imm(32)), reg(carry)))),
                  reg(op(e, Opcode::And, sum.lo, reg(carry))))));
    e.emit(Opcode::Shr, sum.hi, sum.hi, reg(carry));
    e.emit(Opcode::Add, exponent, exponent, reg(carry));
    normalizeUp64(e, sum, exponent);
    int w = op(e, Opcode::Or, op(e, Opcode::Shl, sum.hi, imm(1)), reg(op(e, Opcode::Shr, sum.lo, imm(31))));
    w = op(e, Opcode::Or, w, reg(op(e, Opcode::SetNe, op(e, Opcode::And, sum.lo, imm(kMagnitude)), imm(0))));
    roundPack(e, rd, sign, exponent, w, mode);
    e.jump(done);
}

}  // namespace

void floatFusedMultiplyAdd(Emitter& e, int rd, int a0, int b0, int c, FloatMode mode) {
    auto [a, b, signP, absA, absB] = prepare(e, a0, b0, mode.flush);
    c = flushInput(e, c, mode.flush);
    int absC = op(e, Opcode::And, c, imm(kMagnitude));
    int special = e.newBlock(), finite = e.newBlock(), zeroProduct = e.newBlock(), product = e.newBlock();
    int done = e.newBlock();
    int largest = op(e, Opcode::MaxU, op(e, Opcode::MaxU, absA, reg(absB)), reg(absC));
    e.branch(op(e, Opcode::SetGeU, largest, imm(kInfinity)), special, finite);

    e.enter(special);  // NaN for a NaN, infinity times zero, or infinities of opposite signs meeting
    fusedSpecialCase(e, rd, c, signP, absA, absB, absC, largest);
    e.jump(done);

    e.enter(finite);
    e.branch(op(e, Opcode::SetEq, op(e, Opcode::MinU, absA, reg(absB)), imm(0)), zeroProduct, product);
    e.enter(zeroProduct);  // c, or a zero: zeros of one sign keep it, of opposite signs give +0 (-0 down)
    fusedZeroProduct(e, rd, c, signP, absC, mode);
    e.jump(done);

    e.enter(product);  // the exact product: 48 bits from 12-bit halves, moved so that its top is bit 47
    auto [p, exponentP] = productWindow(e, a, b);
    auto [addendHi, exponentC, join] = addendWindow(e, c);

    e.enter(join);  // the larger in magnitude keeps its place, the other shifts right by the difference
    auto [sum, sign, exponent] = alignAndAdd(e, c, signP, p, exponentP, addendHi, exponentC);
    roundSum(e, rd, sum, sign, exponent, mode, done);
    e.enter(done);
}

void floatDivide(Emitter& e, int rd, int a0, int b0, FloatMode mode) {
    auto [a, b, sign, absA, absB] = prepare(e, a0, b0, mode.flush);
    int special = e.newBlock(), finite = e.newBlock(), done = e.newBlock();
    int edge = op(e, Opcode::SetGeU, op(e, Opcode::MaxU, absA, reg(absB)), imm(kInfinity));
    edge = op(e, Opcode::Or, edge, reg(op(e, Opcode::SetEq, op(e, Opcode::MinU, absA, reg(absB)), imm(0))));
    e.branch(edge, special, finite);

    e.enter(special);  // a NaN, an infinity or a zero: NaN for 0/0 and inf/inf, inf for x/0 and inf/y, else 0
    int nan = op(e, Opcode::SetGtU, op(e, Opcode::MaxU, absA, reg(absB)), imm(kInfinity));
    int same = op(e, Opcode::SetEq, absA, reg(absB));
    int both =
        op(e, Opcode::And, same,
           reg(op(e, Opcode::Or, op(e, Opcode::SetEq, absA, imm(0)), reg(op(e, Opcode::SetEq, absA, imm(kInfinity))))));
    nan = op(e, Opcode::Or, nan, reg(both));
    int infinite =
        op(e, Opcode::Or, op(e, Opcode::SetEq, absA, imm(kInfinity)), reg(op(e, Opcode::SetEq, absB, imm(0))));
    canonicalIfNan(e, rd, nan, sel(e, infinite, op(e, Opcode::Or, sign, imm(kInfinity)), reg(sign)));
    e.jump(done);

    e.enter(finite);  // significands in [2^23, 2^24); the dividend's doubled when below the divisor's
    int ea = exponentField(e, a), ma = significand(e, a, ea);
    ea = op(e, Opcode::Max, ea, imm(1));
    normalizeUp(e, ma, ea, 23);
    int eb = exponentField(e, b), mb = significand(e, b, eb);
    eb = op(e, Opcode::Max, eb, imm(1));
    normalizeUp(e, mb, eb, 23);
    int below = op(e, Opcode::SetLtU, ma, reg(mb));
    e.emit(Opcode::Shl, ma, ma, reg(below));
    int exponent = op(e, Opcode::Sub, op(e, Opcode::Sub, ea, reg(eb)), reg(below));
    // Long division, one quotient bit per iteration: the first bit is 1, so 31 bits have been made when
    // the quotient reaches 2^30. The remainder stays below twice the divisor.
    int quotient = mov(e, imm(0)), loop = e.newBlock(), end = e.newBlock();
    e.jump(loop);
    e.enter(loop);
    int fits = op(e, Opcode::SetGeU, ma, reg(mb));
    e.emit(Opcode::Sel, ma, op(e, Opcode::Sub, ma, reg(mb)), reg(ma), fits);
    e.emit(Opcode::Shl, ma, ma, imm(1));
    e.emit(Opcode::Add, quotient, op(e, Opcode::Shl, quotient, imm(1)), reg(fits));
    e.branch(op(e, Opcode::SetLtU, quotient, imm(1u << 30)), loop, end);
    e.enter(end);
    int w = op(e, Opcode::Or, quotient, reg(op(e, Opcode::SetNe, ma, imm(0))));
    roundPack(e, rd, sign, op(e, Opcode::Add, exponent, imm(127)), w, mode);
    e.jump(done);
    e.enter(done);
}

void floatSquareRoot(Emitter& e, int rd, int a, FloatMode mode) {
    a = flushInput(e, a, mode.flush);
    int special = e.newBlock(), finite = e.newBlock(), done = e.newBlock();
    // Zeros, +inf, NaNs and negative numbers: the value itself, or NaN for a NaN or a number below -0.
    int positive = op(e, Opcode::SetLtU, a, imm(kInfinity));  // +0 .. the largest float
    e.branch(op(e, Opcode::And, positive, reg(op(e, Opcode::SetNe, a, imm(0)))), finite, special);
    e.enter(special);
    int nan = op(e, Opcode::SetGtU, a, imm(kInfinity));  // a NaN of either sign, or any negative but -0
    canonicalIfNan(e, rd, op(e, Opcode::And, nan, reg(op(e, Opcode::SetNe, a, imm(kSign)))), a);
    e.jump(done);

    e.enter(finite);  // a = m * 2^(field - 150), m in [2^23, 2^24); m << p (1 or 2) makes the power even
    int field = exponentField(e, a), m = significand(e, a, field);
    field = op(e, Opcode::Max, field, imm(1));
    normalizeUp(e, m, field, 23);
    int p = op(e, Opcode::Sub, mov(e, imm(2)), reg(op(e, Opcode::And, field, imm(1))));
    int source = op(e, Opcode::Shl, op(e, Opcode::Shl, m, reg(p)), imm(6));  // m's 26 bits at the top
    int exponent = op(e, Opcode::Add, op(e, Opcode::Sra, op(e, Opcode::Sub, field, reg(p)), imm(1)), imm(64));
    // Digit by digit, two bits of m * 2^24 per iteration: 25 root bits, the first 1, so the root
    // reaches 2^24 at the end. The remainder stays below 2^26.
    int root = mov(e, imm(0)), remainder = mov(e, imm(0)), loop = e.newBlock(), end = e.newBlock();
    e.jump(loop);
    e.enter(loop);
    e.emit(Opcode::Shl, remainder, remainder, imm(2));
    e.emit(Opcode::Or, remainder, remainder, reg(op(e, Opcode::Shr, source, imm(30))));
    e.emit(Opcode::Shl, source, source, imm(2));
    int trial = op(e, Opcode::Or, op(e, Opcode::Shl, root, imm(2)), imm(1));
    int fits = op(e, Opcode::SetGeU, remainder, reg(trial));
    e.emit(Opcode::Sel, remainder, op(e, Opcode::Sub, remainder, reg(trial)), reg(remainder), fits);
    e.emit(Opcode::Add, root, op(e, Opcode::Shl, root, imm(1)), reg(fits));
    e.branch(op(e, Opcode::SetLtU, root, imm(1u << 24)), loop, end);
    e.enter(end);
    int w = op(e, Opcode::Or, op(e, Opcode::Shl, root, imm(6)), reg(op(e, Opcode::SetNe, remainder, imm(0))));
    roundPack(e, rd, kZeroReg, exponent, w, mode);
    e.jump(done);
    e.enter(done);
}

void intToFloat(Emitter& e, int rd, int a, bool isSigned, Rounding rounding) {
    int sign = kZeroReg, magnitude = a;
    if (isSigned) {  // |INT_MIN| is 2^31, an unsigned magnitude
        sign = op(e, Opcode::And, a, imm(kSign));
        int all = op(e, Opcode::Sra, a, imm(31));
        magnitude = op(e, Opcode::Sub, op(e, Opcode::Xor, a, reg(all)), reg(all));
    }
    packInteger(e, rd, sign, magnitude, {rounding, false});
}

void floatToInt(Emitter& e, int rd, int a, bool isSigned, Rounding rounding, bool flush) {
    a = flushInput(e, a, flush);
    int field = exponentField(e, a), sign = op(e, Opcode::And, a, imm(kSign));
    int magnitude = e.temp(), huge = e.temp();
    int large = e.newBlock(), small = e.newBlock(), join = e.newBlock();
    e.branch(op(e, Opcode::SetGeU, field, imm(150)), large, small);
    e.enter(large);  // |a| >= 2^23 is an integer; from 2^32 on (field 159), infinities and NaNs included, huge
    e.emit(Opcode::Shl, magnitude, significand(e, a, field), reg(op(e, Opcode::Sub, field, imm(150))));
    e.emit(Opcode::SetGeU, huge, field, imm(159));
    e.jump(join);
    e.enter(small);
    e.emit(Opcode::Shr, magnitude, roundFixedPoint(e, smallMagnitude(e, a, field), sign, rounding), imm(kWorkingShift));
    e.emit(Opcode::Mov, huge, kZeroReg, imm(0));
    e.jump(join);
    e.enter(join);
    int nan = isNan(e, a), value;
    if (isSigned) {  // saturate to INT_MAX, or to INT_MIN for a negative value
        int limit = op(e, Opcode::Add, op(e, Opcode::SetNe, sign, imm(0)), imm(0x7fffffff));
        int capped = sel(e, huge, limit, reg(op(e, Opcode::MinU, magnitude, reg(limit))));
        int all = op(e, Opcode::Sra, a, imm(31));
        value = op(e, Opcode::Sub, op(e, Opcode::Xor, capped, reg(all)), reg(all));
    } else {  // saturate to UINT_MAX; any negative value to 0
        value = sel(e, huge, mov(e, imm(0xffffffff)), reg(magnitude));
        nan = op(e, Opcode::Or, nan, reg(op(e, Opcode::SetNe, sign, imm(0))));
    }
    e.emit(Opcode::Sel, rd, kZeroReg, reg(value), nan);
}

void roundToIntegral(Emitter& e, int rd, int a, Rounding rounding, bool flush) {
    a = flushInput(e, a, flush);
    int absA = op(e, Opcode::And, a, imm(kMagnitude));
    int whole = e.newBlock(), fraction = e.newBlock(), done = e.newBlock();
    e.branch(op(e, Opcode::SetGeU, absA, imm(kTwoTo23)), whole, fraction);
    e.enter(whole);  // an integer already, an infinity or a NaN
    canonicalIfNan(e, rd, op(e, Opcode::SetGtU, absA, imm(kInfinity)), a);
    e.jump(done);
    e.enter(fraction);  // the rounded magnitude is at most 2^23, so converting it back is exact
    int field = exponentField(e, a), sign = op(e, Opcode::And, a, imm(kSign));
    int rounded = roundFixedPoint(e, smallMagnitude(e, a, field), sign, rounding);
    packInteger(e, rd, sign, op(e, Opcode::Shr, rounded, imm(kWorkingShift)), {});
    e.jump(done);
    e.enter(done);
}

void floatCompare(Emitter& e, int rd, int a, B b, FloatCompare compare, bool flush) {
    a = flushInput(e, a, flush);
    int unordered;
    B keyB;
    if (b.isImm) {
        uint32_t bits = flushedBits(b.value, flush);
        keyB = imm(orderKey(bits));
        unordered = (bits & kMagnitude) > kInfinity ? mov(e, imm(1)) : isNan(e, a);
    } else {
        int bReg = flushInput(e, b.reg, flush);
        keyB = reg(orderKey(e, bReg));
        unordered = op(e, Opcode::Or, isNan(e, a), reg(isNan(e, bReg)));
    }
    if (compare == FloatCompare::Nan) return copy(e, rd, unordered);
    if (compare == FloatCompare::Num) return e.emit(Opcode::Xor, rd, unordered, imm(1));
    static const Opcode opcodes[] = {Opcode::SetEq, Opcode::SetNe, Opcode::SetLt,
                                     Opcode::SetLe, Opcode::SetGt, Opcode::SetGe};
    int index = int(compare), ordered = index < 6;
    int holds = op(e, opcodes[index % 6], orderKey(e, a), keyB);
    if (ordered) return e.emit(Opcode::Sel, rd, kZeroReg, reg(holds), unordered);
    e.emit(Opcode::Or, rd, holds, reg(unordered));
}

void floatMinMax(Emitter& e, int rd, int a, B b, MinMax kind) {
    a = flushInput(e, a, kind.flush);
    int bReg = flushInput(e, inRegister(e, b), kind.flush);
    int pickA = op(e, kind.isMax ? Opcode::SetGt : Opcode::SetLt, totalOrderKey(e, a), reg(totalOrderKey(e, bReg)));
    int nanA = isNan(e, a), nanB = isNan(e, bReg);
    int result = sel(e, pickA, a, reg(bReg));
    if (kind.propagateNan) return canonicalIfNan(e, rd, op(e, Opcode::Or, nanA, reg(nanB)), result);
    result = sel(e, nanA, bReg, reg(result));  // one NaN: the other operand
    result = sel(e, nanB, a, reg(result));
    canonicalIfNan(e, rd, op(e, Opcode::And, nanA, reg(nanB)), result);
}

void floatSaturate(Emitter& e, int rd, int a) {
    // As unsigned words, every negative float (-0 and negative NaNs included) is at least the sign bit, a
    // positive NaN is above infinity's encoding, and positive floats order as their values.
    int toZero = op(e, Opcode::SetGtU, a, imm(kInfinity));
    int clamped = op(e, Opcode::MinU, a, imm(kOne));
    e.emit(Opcode::Sel, rd, kZeroReg, reg(clamped), toZero);
}

void floatTest(Emitter& e, int rd, int a, FloatClass what) {
    int magnitude = op(e, Opcode::And, a, imm(kMagnitude));
    switch (what) {
        case FloatClass::Finite: return e.emit(Opcode::SetLtU, rd, magnitude, imm(kInfinity));
        case FloatClass::Infinite: return e.emit(Opcode::SetEq, rd, magnitude, imm(kInfinity));
        case FloatClass::Number: return e.emit(Opcode::SetLeU, rd, magnitude, imm(kInfinity));
        case FloatClass::NotANumber: return e.emit(Opcode::SetGtU, rd, magnitude, imm(kInfinity));
        case FloatClass::Normal:  // exponent field 1..254: magnitude - 2^23 below 254 << 23
            return e.emit(Opcode::SetLtU, rd, op(e, Opcode::Sub, magnitude, imm(kHidden)), imm(kInfinity - kHidden));
        case FloatClass::Subnormal:  // magnitude 1..2^23 - 1
            return e.emit(Opcode::SetLtU, rd, op(e, Opcode::Sub, magnitude, imm(1)), imm(kHidden - 1));
    }
}

void floatCopySign(Emitter& e, int rd, int signOf, int valueOf) {
    int sign = op(e, Opcode::And, signOf, imm(kSign));
    e.emit(Opcode::Or, rd, op(e, Opcode::And, valueOf, imm(kMagnitude)), reg(sign));
}

void floatSign(Emitter& e, int rd, int a, bool absolute, bool flush) {
    a = flushInput(e, a, flush);
    int result = absolute ? op(e, Opcode::And, a, imm(kMagnitude)) : op(e, Opcode::Xor, a, imm(kSign));
    canonicalIfNan(e, rd, isNan(e, a), result);
}

}  // namespace qgpu::lowering
