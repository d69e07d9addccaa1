#include "Sequences.h"

#include <algorithm>

#include "SequenceHelpers.h"

namespace qgpu::lowering {
namespace {

constexpr uint32_t kIntMin = 0x80000000u;

// The unsigned shift-subtract division of n by d (d != 0): the quotient (unless only the remainder is
// wanted) and the remainder. The divisor is first doubled while it fits under n / 2, so the second loop
// runs once per quotient bit that can be set; each loop is one or two machine blocks.
struct QuotientRemainder {
    int q = kZeroReg, r = kZeroReg;
};
QuotientRemainder unsignedDivide(Emitter& e, int n, int d, bool wantQuotient) {
    QuotientRemainder out;
    out.r = mov(e, reg(n));
    int m = mov(e, reg(d)), half = op(e, Opcode::Shr, n, imm(1));
    if (wantQuotient) out.q = mov(e, imm(0));
    int align = e.newBlock(), step = e.newBlock(), done = e.newBlock();
    e.jump(align);
    e.enter(align);
    int fits = op(e, Opcode::SetLeU, m, reg(half));
    e.emit(Opcode::Sel, m, op(e, Opcode::Shl, m, imm(1)), reg(m), fits);
    e.branch(fits, align, step);
    e.enter(step);
    int less = op(e, Opcode::Sub, out.r, reg(m));  // wraps above r when m > r
    if (wantQuotient) {
        int c = op(e, Opcode::SetLeU, m, reg(out.r));
        e.emit(Opcode::Add, out.q, out.q, reg(out.q));
        e.emit(Opcode::Add, out.q, out.q, reg(c));
    }
    e.emit(Opcode::MinU, out.r, out.r, reg(less));
    e.emit(Opcode::Shr, m, m, imm(1));
    e.branch(op(e, Opcode::SetGeU, m, reg(d)), step, done);
    e.enter(done);
    return out;
}

// |x| as unsigned, and x's sign as 0 or all ones.
std::pair<int, int> magnitude(Emitter& e, int x) {
    int sign = op(e, Opcode::Sra, x, imm(31));
    int flipped = op(e, Opcode::Xor, x, reg(sign));
    return {op(e, Opcode::Sub, flipped, reg(sign)), sign};
}

// rd = x when sign is 0, -x when it is all ones.
void applySign(Emitter& e, int rd, int x, int sign) {
    int flipped = op(e, Opcode::Xor, x, reg(sign));
    e.emit(Opcode::Sub, rd, flipped, reg(sign));
}

// One step of a binary search for the leading zeros: when x is below 2^(32 - k), shift it up by k.
void leadingZeroStep(Emitter& e, int x, int count, int k) {
    int below = op(e, Opcode::SetLtU, x, imm(int64_t(1) << (32 - k)));
    int log2 = 0;
    while ((1 << log2) < k) ++log2;
    int shift = log2 ? op(e, Opcode::Shl, below, imm(log2)) : below;
    if (k > 1) e.emit(Opcode::Shl, x, x, reg(shift));
    e.emit(Opcode::Add, count, count, reg(shift));
}

}  // namespace

void mulHigh(Emitter& e, int rd, int a, B b, bool isSigned) {
    // a = ah 2^16 + al, b = bh 2^16 + bl: four products of 16-bit halves, each exact in 32 bits.
    int al = op(e, Opcode::And, a, imm(0xffff)), ah = op(e, Opcode::Shr, a, imm(16));
    B bl = b.isImm ? imm(b.value & 0xffff) : reg(op(e, Opcode::And, b.reg, imm(0xffff)));
    B bh = b.isImm ? imm(b.value >> 16) : reg(op(e, Opcode::Shr, b.reg, imm(16)));
    int ll = op(e, Opcode::Mul, al, bl), lh = op(e, Opcode::Mul, al, bh);
    int hl = op(e, Opcode::Mul, ah, bl), hh = op(e, Opcode::Mul, ah, bh);
    // The carry out of bits 16..31: (ll >> 16) + low halves of lh and hl, at most 3 * 2^16.
    int mid = op(e, Opcode::Shr, ll, imm(16));
    e.emit(Opcode::Add, mid, mid, reg(op(e, Opcode::And, lh, imm(0xffff))));
    e.emit(Opcode::Add, mid, mid, reg(op(e, Opcode::And, hl, imm(0xffff))));
    int hi = op(e, Opcode::Add, hh, reg(op(e, Opcode::Shr, lh, imm(16))));
    e.emit(Opcode::Add, hi, hi, reg(op(e, Opcode::Shr, hl, imm(16))));
    e.emit(Opcode::Add, hi, hi, reg(op(e, Opcode::Shr, mid, imm(16))));
    if (isSigned) {  // signed = unsigned - (a < 0 ? b : 0) - (b < 0 ? a : 0), mod 2^32
        int aSign = op(e, Opcode::Sra, a, imm(31));
        e.emit(Opcode::Sub, hi, hi, reg(op(e, Opcode::And, aSign, b)));
        if (!b.isImm)
            e.emit(Opcode::Sub, hi, hi, reg(op(e, Opcode::And, op(e, Opcode::Sra, b.reg, imm(31)), reg(a))));
        else if (b.value & kIntMin)
            e.emit(Opcode::Sub, hi, hi, reg(a));
    }
    copy(e, rd, hi);
}

void divide(Emitter& e, int rd, int a, B b, bool isSigned, bool remainder) {
    int d = inRegister(e, b);
    int byZero = op(e, Opcode::SetEq, d, imm(0));
    e.emit(Opcode::Warn, kZeroReg, kZeroReg, imm(int64_t(MachineWarning::DivisionByZero)), byZero);
    if (isSigned) {  // INT_MIN / -1 needs no path of its own: the magnitudes give INT_MIN and 0
        int isMin = op(e, Opcode::SetEq, a, imm(kIntMin)), minusOne = op(e, Opcode::SetEq, d, imm(-1));
        int overflow = op(e, Opcode::And, isMin, reg(minusOne));
        e.emit(Opcode::Warn, kZeroReg, kZeroReg, imm(int64_t(MachineWarning::DivisionOverflow)), overflow);
    }
    // A zero divisor divides by 1 and the result becomes all ones below.
    int result = e.temp();
    if (!isSigned) {
        QuotientRemainder qr = unsignedDivide(e, a, op(e, Opcode::Or, d, reg(byZero)), !remainder);
        copy(e, result, remainder ? qr.r : qr.q);
    } else {
        auto [n, aSign] = magnitude(e, a);
        auto [m, dSign] = magnitude(e, d);
        QuotientRemainder qr = unsignedDivide(e, n, op(e, Opcode::Or, m, reg(byZero)), !remainder);
        if (remainder)
            applySign(e, result, qr.r, aSign);  // the remainder has the dividend's sign
        else
            applySign(e, result, qr.q, op(e, Opcode::Xor, aSign, reg(dSign)));
    }
    e.emit(Opcode::Or, rd, result, reg(op(e, Opcode::Sub, kZeroReg, reg(byZero))));
}

void populationCount(Emitter& e, int rd, int a) {
    int x = op(e, Opcode::Sub, a, reg(op(e, Opcode::And, op(e, Opcode::Shr, a, imm(1)), imm(0x55555555))));
    int pairs = op(e, Opcode::And, op(e, Opcode::Shr, x, imm(2)), imm(0x33333333));
    x = op(e, Opcode::Add, op(e, Opcode::And, x, imm(0x33333333)), reg(pairs));
    x = op(e, Opcode::And, op(e, Opcode::Add, x, reg(op(e, Opcode::Shr, x, imm(4)))), imm(0x0f0f0f0f));
    e.emit(Opcode::Shr, rd, op(e, Opcode::Mul, x, imm(0x01010101)), imm(24));
}

void leadingZeros(Emitter& e, int rd, int a) {
    int x = mov(e, reg(a)), count = op(e, Opcode::SetEq, a, imm(0));  // 0 has 31 from the steps, plus 1
    for (int k : {16, 8, 4, 2, 1}) leadingZeroStep(e, x, count, k);
    copy(e, rd, count);
}

void bitReverse(Emitter& e, int rd, int a) {
    int x = a;
    const uint32_t masks[4] = {0x55555555, 0x33333333, 0x0f0f0f0f, 0x00ff00ff};
    for (int i = 0; i < 4; ++i) {
        int k = 1 << i;
        int high = op(e, Opcode::And, op(e, Opcode::Shr, x, imm(k)), imm(masks[i]));
        int low = op(e, Opcode::Shl, op(e, Opcode::And, x, imm(masks[i])), imm(k));
        x = op(e, Opcode::Or, high, reg(low));
    }
    e.emit(Opcode::Or, rd, op(e, Opcode::Shr, x, imm(16)), reg(op(e, Opcode::Shl, x, imm(16))));
}

void bitFieldExtract(Emitter& e, int rd, int a, B pos, B len, bool isSigned) {
    if (pos.isImm && len.isImm) {
        uint32_t p = pos.value & 0xff, l = len.value & 0xff;
        if (l == 0) return e.emit(Opcode::Mov, rd, kZeroReg, imm(0));
        if (!isSigned) {
            int shifted = op(e, Opcode::Shr, a, imm(p));  // the machine's shr gives 0 from 32 on
            return e.emit(Opcode::And, rd, shifted, imm(l >= 32 ? 0xffffffffu : (1u << l) - 1));
        }
        if (p >= 32) return e.emit(Opcode::Sra, rd, a, imm(31));
        uint32_t top = std::min(p + l, 32u);  // bits p .. top-1, sign from bit top-1
        return e.emit(Opcode::Sra, rd, op(e, Opcode::Shl, a, imm(32 - top)), imm(32 - top + p));
    }
    int p = op(e, Opcode::And, inRegister(e, pos), imm(0xff)), l = op(e, Opcode::And, inRegister(e, len), imm(0xff));
    if (!isSigned) {  // (a >> p) & (2^l - 1); 1 << l is 0 from 32 on, so the mask is all ones
        int mask = op(e, Opcode::Sub, op(e, Opcode::Shl, mov(e, imm(1)), reg(l)), imm(1));
        return e.emit(Opcode::And, rd, op(e, Opcode::Shr, a, reg(p)), reg(mask));
    }
    // top = min(p + l, 32): shift bit top-1 up to 31, then down arithmetically to p; len 0 gives 0.
    int top = op(e, Opcode::MinU, op(e, Opcode::Add, p, reg(l)), imm(32));
    int up = op(e, Opcode::Sub, mov(e, imm(32)), reg(top));
    int field = op(e, Opcode::Sra, op(e, Opcode::Shl, a, reg(up)), reg(op(e, Opcode::Add, up, reg(p))));
    e.emit(Opcode::Sel, rd, kZeroReg, reg(field), op(e, Opcode::SetEq, l, imm(0)));
}

void bitFieldInsert(Emitter& e, int rd, int a, int base, B pos, B len) {
    B mask;
    int shifted;
    if (pos.isImm && len.isImm) {
        uint32_t p = pos.value & 0xff, l = len.value & 0xff;
        uint32_t bits = l >= 32 ? 0xffffffffu : (1u << l) - 1;
        mask = imm(p >= 32 ? 0 : uint32_t(uint64_t(bits) << p));
        shifted = op(e, Opcode::Shl, a, imm(p));
    } else {
        int p = op(e, Opcode::And, inRegister(e, pos), imm(0xff));
        int l = op(e, Opcode::And, inRegister(e, len), imm(0xff));
        int bits = op(e, Opcode::Sub, op(e, Opcode::Shl, mov(e, imm(1)), reg(l)), imm(1));
        mask = reg(op(e, Opcode::Shl, bits, reg(p)));
        shifted = op(e, Opcode::Shl, a, reg(p));
    }
    int inserted = op(e, Opcode::And, shifted, mask);
    int kept = mask.isImm ? op(e, Opcode::And, base, imm(~mask.value))
                          : op(e, Opcode::And, base, reg(op(e, Opcode::Not, mask.reg, {})));
    e.emit(Opcode::Or, rd, kept, reg(inserted));
}

void funnelShift(Emitter& e, int rd, int a, int b, B amount, bool left, bool clamp) {
    // left: (b << n) | (a >> (32 - n)); right: (a >> n) | (b << (32 - n)). The machine's shifts give 0 from
    // 32 on, so n = 0 and n = 32 need no case of their own.
    B n = amount.isImm ? imm(clamp ? std::min<uint32_t>(amount.value, 32) : amount.value & 31)
                       : reg(op(e, clamp ? Opcode::MinU : Opcode::And, amount.reg, imm(clamp ? 32 : 31)));
    B rest = n.isImm ? imm(32 - n.value) : reg(op(e, Opcode::Sub, mov(e, imm(32)), n));
    int kept = left ? b : a, incoming = left ? a : b;
    int high = op(e, left ? Opcode::Shl : Opcode::Shr, kept, n);
    int low = op(e, left ? Opcode::Shr : Opcode::Shl, incoming, rest);
    e.emit(Opcode::Or, rd, high, reg(low));
}

void bytePermute(Emitter& e, int rd, int a, int b, uint32_t selector) {
    int out = kZeroReg;
    for (int i = 0; i < 4; ++i) {
        uint32_t nibble = selector >> (4 * i) & 0xf, k = nibble & 3;
        int src = (nibble & 7) < 4 ? a : b;
        uint32_t place = 0xffu << (8 * i);
        int byte;
        if (nibble & 8)  // the source byte's bit 7, replicated
            byte = op(e, Opcode::And, op(e, Opcode::Sra, op(e, Opcode::Shl, src, imm(31 - (8 * k + 7))), imm(31)),
                      imm(place));
        else if (k == uint32_t(i))
            byte = op(e, Opcode::And, src, imm(place));
        else if (k > uint32_t(i))
            byte = op(e, Opcode::And, op(e, Opcode::Shr, src, imm(8 * (k - i))), imm(place));
        else
            byte = op(e, Opcode::And, op(e, Opcode::Shl, src, imm(8 * (i - k))), imm(place));
        out = out == kZeroReg ? byte : op(e, Opcode::Or, out, reg(byte));
    }
    copy(e, rd, out);
}

}  // namespace qgpu::lowering
