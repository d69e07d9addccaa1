// qgpu's float math library: the exponentials and the reciprocal square root, written in 32-bit
// integer arithmetic (fixed point, with __umulhi for the products), so that the same source
// gives the same bits compiled for the machine and for a host, whatever either compiler contracts or
// reorders. Integer code needs no float routine and few registers; its cost is ROM (docs/qgpu-cuda.md).
// Accuracy (docs/qgpu-cuda.md has the measured table): within 1 ulp, most results correctly rounded.
//
// The includer defines QGPU_MATH_FN (the qualifiers of every function here) and, before this file,
// __umulhi, __clz, __float_as_uint and __uint_as_float. Helper names start with __qgpu_.

// ---- fixed-point helpers -------------------------------------------------------------------------

// The low word of the 64-bit hi:lo shifted right by n; a negative n shifts left (n >= -32).
QGPU_MATH_FN unsigned __qgpu_word_at(unsigned hi, unsigned lo, int n) {
    if (n >= 64 || n <= -32) return 0u;
    if (n < 0) return lo << -n;
    if (n >= 32) return hi >> (n - 32);
    if (n == 0) return lo;
    return (lo >> n) | (hi << (32 - n));
}

// The float (-1)^negative * sig * 2^(e - 31), sig in [2^31, 2^32), rounded to nearest even; `inexact`
// says that bits below sig are not all 0. Overflows to infinity, rounds into the subnormals and to zero.
QGPU_MATH_FN float __qgpu_round_pack(unsigned negative, int e, unsigned sig, unsigned inexact) {
    unsigned sign = negative ? 0x80000000u : 0u;
    int biased = e + 127;
    if (biased >= 255) return __uint_as_float(sign | 0x7f800000u);
    int shift = 8;  // 24 of the 32 bits stay
    if (biased < 1) {
        shift += 1 - biased;
        biased = 0;
    }
    if (shift > 32) return __uint_as_float(sign);  // below half the smallest subnormal
    unsigned kept = shift == 32 ? 0u : sig >> shift;
    unsigned rest = sig << (32 - shift);  // the bits rounded away, at the top of the word
    unsigned up = rest > 0x80000000u || (rest == 0x80000000u && (inexact || (kept & 1u)));
    kept += up;
    // A normal kept has its hidden bit at 2^23, so (biased - 1) << 23 plus kept is the encoding, and a
    // rounding carry raises the exponent; a subnormal has field 0.
    unsigned bits = (biased == 0 ? 0u : unsigned(biased - 1) << 23) + kept;
    if (bits >= 0x7f800000u) bits = 0x7f800000u;
    return __uint_as_float(sign | bits);
}

// ---- exponentials ----------------------------------------------------------------------------------

// 2^(k + f / 2^32), f in [0, 2^32): e^y with y = f ln 2 < ln 2, its Taylor series to y^12 by Horner's rule
// in Q1.31 (error below 2^-27 of the result), then rounded.
QGPU_MATH_FN float __qgpu_exp2_split(int k, unsigned f) {
    unsigned y = __umulhi(f, 0xb17217f8u);  // ln 2 in Q0.32
    unsigned p = 0x4u;                      // 2^31 / 12!, then down to 2^31 / 0!
    p = 0x36u + __umulhi(p, y);
    p = 0x250u + __umulhi(p, y);
    p = 0x171eu + __umulhi(p, y);
    p = 0xd00du + __umulhi(p, y);
    p = 0x68068u + __umulhi(p, y);
    p = 0x2d82d8u + __umulhi(p, y);
    p = 0x1111111u + __umulhi(p, y);
    p = 0x5555555u + __umulhi(p, y);
    p = 0x15555555u + __umulhi(p, y);
    p = 0x40000000u + __umulhi(p, y);
    p = 0x80000000u + __umulhi(p, y);
    p = 0x80000000u + __umulhi(p, y);
    return __qgpu_round_pack(0u, k, p, f != 0u);
}

// b^x = 2^(x log2 b) for log2 b = (lh:ll) * 2^-62 (below 4): the exact product of x's significand and the
// 64-bit constant, split into its integer part and 32 bits of fraction.
QGPU_MATH_FN float __qgpu_exp_base(float x, unsigned lh, unsigned ll) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);  // NaN
    if (magnitude >= 0x43800000u) return (bits >> 31) ? 0.0f : __uint_as_float(0x7f800000u);  // |x| >= 256
    unsigned field = magnitude >> 23;
    unsigned m = (magnitude & 0x7fffffu) | (field != 0u ? 0x800000u : 0u);
    int e = (field != 0u ? int(field) : 1) - 150;  // |x| = m * 2^e
    unsigned mid = __umulhi(m, ll), lo = m * lh + mid;
    unsigned hi = __umulhi(m, lh) + (lo < mid);
    int point = 30 - e;  // |x| log2 b = hi:lo * 2^-point, point >= 45
    unsigned whole = __qgpu_word_at(hi, lo, point), f = __qgpu_word_at(hi, lo, point - 32);
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

// ---- reciprocal square root ------------------------------------------------------------------------

// 1 / sqrt(x): x = a * 2^(2n) with a in [1, 4), then Newton's iteration y <- y (3 - a y^2) / 2 from a
// linear first guess, in fixed point: five steps reach the 28 bits the fixed point keeps.
QGPU_MATH_FN float rsqrtf(float x) {
    unsigned bits = __float_as_uint(x);
    if ((bits & 0x7fffffffu) == 0u) return __uint_as_float((bits & 0x80000000u) | 0x7f800000u);  // +-inf
    if (bits > 0x7f800000u) return __uint_as_float(0x7fffffffu);  // NaN, x < 0
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
        unsigned ay2 = __umulhi(a, __umulhi(y, y) << 1);  // a y^2 in Q3.29 (y^2 in Q1.31)
        unsigned t = 0x60000000u - ay2;                   // 3 - a y^2, Q3.29, in (0, 3)
        y = __umulhi(y, t) << 2;                          // y t / 2, Q1.31
    }
    // 1/sqrt(x) = y * 2^(-31 - e/2) with y in (2^30, 2^31]
    if (y >= 0x80000000u) return __qgpu_round_pack(0u, -e / 2, y, 0u);
    return __qgpu_round_pack(0u, -e / 2 - 1, y << 1, 1u);
}
