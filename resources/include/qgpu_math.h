// qgpu's float math library: exponentials, logarithms and the reciprocal square root, written in 32-bit
// integer arithmetic (fixed point), so that the same source gives the same bits compiled for the machine and
// for a host, whatever either compiler contracts or reorders. Integer code needs no float routine and few
// registers; its cost is ROM. docs/qgpu-cuda.md has the measured accuracy (within 0.56 ulp, most results
// correctly rounded) and the ROM each function takes.
//
// The includer defines QGPU_MATH_FN (the qualifiers of every function here) and, before this file,
// __umulhi, __mulhi, __clz, __float_as_uint and __uint_as_float. Helper names start with __qgpu_.

// ---- fixed-point helpers -------------------------------------------------------------------------

// The low word of the 64-bit hi:lo shifted right by n; a negative n shifts left (n >= -32).
QGPU_MATH_FN unsigned __qgpu_word_at(unsigned hi, unsigned lo, int n) {
    if (n >= 64 || n <= -32) return 0u;
    if (n < 0) return lo << -n;
    if (n >= 32) return hi >> (n - 32);
    if (n == 0) return lo;
    return (lo >> n) | (hi << (32 - n));
}

// High words of 32 x 32-bit products for polynomials: three products of 16-bit halves (the machine
// multiplies 32 bits exactly but has no high-word multiply), at most 2 below the exact high word. A
// polynomial's steps damp what an earlier one truncated, so Horner's rule keeps its accuracy at half the
// code of the exact __umulhi.
QGPU_MATH_FN unsigned __qgpu_mulhi_u(unsigned a, unsigned b) {
    unsigned ah = a >> 16, al = a & 0xffffu, bh = b >> 16, bl = b & 0xffffu;
    return ah * bh + ((ah * bl) >> 16) + ((al * bh) >> 16);
}
QGPU_MATH_FN int __qgpu_mulhi_s(int a, int b) {
    int ah = a >> 16, al = a & 0xffff, bh = b >> 16, bl = b & 0xffff;
    return ah * bh + ((ah * bl) >> 16) + ((al * bh) >> 16);
}

// The float (-1)^negative * sig * 2^(e - 31), sig in [2^31, 2^32), rounded to nearest even; `inexact`
// says that bits below sig are not all 0. Overflows to infinity, rounds into the subnormals and to zero.
QGPU_MATH_FN float __qgpu_round_pack(unsigned negative, int e, unsigned sig, unsigned inexact) {
    int biased = e + 127;
    int shift = 8;  // 24 of the 32 bits stay
    if (biased < 1) {
        shift += 1 - biased;
        biased = 0;
    }
    if (shift > 32) {  // below half the smallest subnormal: rounds to 0
        shift = 32;
        sig = 0u;
    }
    if (biased > 255) biased = 255;  // overflows below
    unsigned kept = shift == 32 ? 0u : sig >> shift;
    unsigned rest = sig << (32 - shift);  // the bits rounded away, at the top of the word
    kept += rest > 0x80000000u || (rest == 0x80000000u && (inexact || (kept & 1u)));
    // A normal kept has its hidden bit at 2^23, so (biased - 1) << 23 plus kept is the encoding, and a
    // rounding carry raises the exponent; a subnormal has field 0.
    unsigned bits = (biased == 0 ? 0u : unsigned(biased - 1) << 23) + kept;
    if (bits >= 0x7f800000u) bits = 0x7f800000u;
    return __uint_as_float((negative ? 0x80000000u : 0u) | bits);
}

// The signed 64-bit fixed-point number hi:lo * 2^-fraction as a float.
QGPU_MATH_FN float __qgpu_fixed_to_float(unsigned hi, unsigned lo, int fraction) {
    unsigned negative = hi >> 31;
    if (negative) {  // two's complement negation of hi:lo
        lo = 0u - lo;
        hi = ~hi + (lo == 0u);
    }
    if (hi == 0u && lo == 0u) return 0.0f;
    int lead = hi != 0u ? __clz((int)hi) : 32 + __clz((int)lo);
    unsigned sig = __qgpu_word_at(hi, lo, 32 - lead);
    unsigned below = lead < 32 ? __qgpu_word_at(hi, lo, -lead) : 0u;  // the bits after sig
    return __qgpu_round_pack(negative, 63 - lead - fraction, sig, below != 0u);
}

// ---- exponentials ----------------------------------------------------------------------------------

// 2^(k + f / 2^32), f in [0, 2^32): 2^(f / 2^32) by a degree-7 polynomial in f / 2^32 (a Chebyshev fit,
// error 2^-34) by Horner's rule in Q1.31, within 2^-28 of the result, then rounded.
QGPU_MATH_FN float __qgpu_exp2_split(int k, unsigned f) {
    unsigned p = 0xb58du;
    p = 0x4afc9u + __qgpu_mulhi_u(p, f);
    p = 0x2c0161u + __qgpu_mulhi_u(p, f);
    p = 0x13b046eu + __qgpu_mulhi_u(p, f);
    p = 0x71acc0du + __qgpu_mulhi_u(p, f);
    p = 0x1ebfbcc3u + __qgpu_mulhi_u(p, f);
    p = 0x58b90c0bu + __qgpu_mulhi_u(p, f);
    p = 0x80000000u + __umulhi(p, f);  // the last step exact: what it truncates stays in the result
    return __qgpu_round_pack(0u, k, p, f != 0u);
}

// b^x = 2^(x log2 b) for log2 b = (lh:ll) * 2^-62 (below 4): the exact product of x's significand and the
// 64-bit constant, split into its integer part and 32 bits of fraction.
QGPU_MATH_FN float __qgpu_exp_base(float x, unsigned lh, unsigned ll) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu;
    if (magnitude >= 0x43800000u)  // NaN, or |x| >= 256: infinity or 0
        return __uint_as_float(magnitude > 0x7f800000u ? 0x7fffffffu : (bits >> 31) ? 0u : 0x7f800000u);
    unsigned field = magnitude >> 23;
    unsigned m = (magnitude & 0x7fffffu) | (field != 0u ? 0x800000u : 0u);
    int e = (field != 0u ? int(field) : 1) - 150;             // |x| = m * 2^e
    unsigned mid = __qgpu_mulhi_u(m, ll), lo = m * lh + mid;  // mid: the low constant word's part, to 2^-60
    unsigned hi = __umulhi(m, lh) + (lo < mid);
    int n = -2 - e;  // |x| log2 b = hi:lo * 2^-(n + 32), n >= 14: its whole part and 32 bits of fraction
    unsigned whole = n >= 32 ? 0u : hi >> n;
    unsigned f = n >= 64 ? 0u : n >= 32 ? hi >> (n - 32) : (lo >> n) | (hi << (32 - n));
    int k = int(whole);
    if (bits >> 31) {  // -(k + f) = -(k + 1) + (1 - f)
        k = f != 0u ? -k - 1 : -k;
        f = 0u - f;
    }
    return __qgpu_exp2_split(k, f);
}

QGPU_MATH_FN float expf(float x) { return __qgpu_exp_base(x, 0x5c551d94u, 0xae0bf85eu); }
QGPU_MATH_FN float exp2f(float x) { return __qgpu_exp_base(x, 0x40000000u, 0u); }
QGPU_MATH_FN float exp10f(float x) { return __qgpu_exp_base(x, 0xd49a784bu, 0xcd1b8afeu); }

// ---- logarithms ------------------------------------------------------------------------------------

// log2 x for a positive finite x, as the signed 64-bit fixed-point number hi:lo * 2^-54: x = 2^e (1 + u)
// with 1 + u in [sqrt(1/2), sqrt(2)), and log2(1 + u) = u H(u) with H of degree 11 (a Chebyshev fit, error
// 2^-32) by Horner's rule in Q1.30: log2 of an x near 1 keeps its relative accuracy.
QGPU_MATH_FN void __qgpu_log2_fixed(unsigned bits, unsigned& hi, unsigned& lo) {
    unsigned field = bits >> 23, m = bits & 0x7fffffu;
    int e = int(field) - 127;
    if (field == 0u) {  // subnormal: normalise the significand
        int shift = __clz((int)m) - 8;
        m <<= shift;
        e = -126 - shift;
    }
    m |= 0x800000u;  // 1 + u = m * 2^-23
    int u;           // u * 2^24
    if (m > 0xb504f3u) {
        u = int(m) - 0x1000000;
        e += 1;
    } else {
        u = 2 * (int(m) - 0x800000);
    }
    int v = u * 256;  // u * 2^32
    int h = -0x565bf83;
    h = 0x9d22bfc + __qgpu_mulhi_s(h, v);
    h = -0xa0fffdd + __qgpu_mulhi_s(h, v);
    h = 0xa322f2d + __qgpu_mulhi_s(h, v);
    h = -0xb75934c + __qgpu_mulhi_s(h, v);
    h = 0xd304727 + __qgpu_mulhi_s(h, v);
    h = -0xf6465d9 + __qgpu_mulhi_s(h, v);
    h = 0x12777695 + __qgpu_mulhi_s(h, v);
    h = -0x1715438f + __qgpu_mulhi_s(h, v);
    h = 0x1ec709b6 + __qgpu_mulhi_s(h, v);
    h = -0x2e2a8ecf + __qgpu_mulhi_s(h, v);
    h = 0x5c551d95 + __qgpu_mulhi_s(h, v);  // H(u) * 2^30
    lo = unsigned(u) * unsigned(h);         // u H(u) * 2^54 exactly, then e * 2^54 added to the high word
    hi = unsigned(__mulhi(u, h)) + (unsigned(e) << 22);
}

// log_b x = log2 x * c for c = log_b 2 in Q0.32 (0: base 2), after the IEEE cases.
QGPU_MATH_FN float __qgpu_log_base(float x, unsigned c) {
    unsigned bits = __float_as_uint(x);
    if (bits > 0x7f800000u && bits != 0x80000000u) return __uint_as_float(0x7fffffffu);  // NaN, x < 0
    if ((bits & 0x7fffffffu) == 0u) return __uint_as_float(0xff800000u);                 // -inf at +-0
    if (bits == 0x7f800000u) return x;
    unsigned hi, lo;
    __qgpu_log2_fixed(bits, hi, lo);
    if (c != 0u) {  // the magnitude times c, the top 64 bits of 96
        unsigned negative = hi >> 31;
        if (negative) {
            lo = 0u - lo;
            hi = ~hi + (lo == 0u);
        }
        unsigned carry = __qgpu_mulhi_u(lo, c);
        lo = hi * c + carry;
        hi = __umulhi(hi, c) + (lo < carry);
        if (negative) {
            lo = 0u - lo;
            hi = ~hi + (lo == 0u);
        }
    }
    return __qgpu_fixed_to_float(hi, lo, 54);
}

QGPU_MATH_FN float log2f(float x) { return __qgpu_log_base(x, 0u); }
QGPU_MATH_FN float logf(float x) { return __qgpu_log_base(x, 0xb17217f8u); }
QGPU_MATH_FN float log10f(float x) { return __qgpu_log_base(x, 0x4d104d42u); }

// ---- reciprocal square root ------------------------------------------------------------------------

// 1 / sqrt(x): x = a * 2^(2n) with a in [1, 4), then Newton's iteration y <- y (3 - a y^2) / 2 from a
// linear first guess, in fixed point: five steps reach the 28 bits the fixed point keeps.
QGPU_MATH_FN float rsqrtf(float x) {
    unsigned bits = __float_as_uint(x);
    if ((bits & 0x7fffffffu) == 0u) return __uint_as_float((bits & 0x80000000u) | 0x7f800000u);  // +-inf
    if (bits > 0x7f800000u) return __uint_as_float(0x7fffffffu);                                 // NaN, x < 0
    if (bits == 0x7f800000u) return 0.0f;
    unsigned field = bits >> 23, m = bits & 0x7fffffu;
    int e = int(field) - 127;
    if (field == 0u) {
        int shift = __clz((int)m) - 8;
        m <<= shift;
        e = -126 - shift;
    }
    m |= 0x800000u;
    unsigned a = m << 7;  // a in Q2.30, [1, 2)
    if (e & 1) {          // an odd exponent: a in [2, 4)
        a <<= 1;
        e -= 1;
    }
    unsigned y = 0x8b851eb8u - (a >> 4) * 5u;  // Q1.31: 1.09 - 0.15625 a, within 11%
    for (int i = 0; i < 5; ++i) {
        unsigned ay2 = __qgpu_mulhi_u(a, __qgpu_mulhi_u(y, y) << 1);  // a y^2 in Q3.29 (y^2 in Q1.31)
        unsigned t = 0x60000000u - ay2;                               // 3 - a y^2, Q3.29, in (0, 3)
        y = __qgpu_mulhi_u(y, t) << 2;                                // y t / 2, Q1.31
    }
    // 1/sqrt(x) = y * 2^(-31 - e/2) with y in (2^30, 2^31]
    if (y >= 0x80000000u) return __qgpu_round_pack(0u, -e / 2, y, 0u);
    return __qgpu_round_pack(0u, -e / 2 - 1, y << 1, 1u);
}
