// qgpu's float math library: exponentials, logarithms, powers, roots, trigonometric, hyperbolic and error
// functions, written in 32-bit integer arithmetic (fixed point), so that the same source gives the same bits
// compiled for the machine and for a host, whatever either compiler contracts or reorders. Integer code needs
// no float routine and few registers; its cost is ROM. docs/math.md has the measured accuracy (within 0.8 ulp,
// most results correctly rounded) and the ROM each function takes. This file has the helpers, exponentials,
// logarithms, powers and roots; qgpu_math_trig.h, qgpu_math_hyperbolic.h and qgpu_math_exact.h the rest.
//
// The includer defines QGPU_MATH_FN (the qualifiers of every function here), QGPU_MATH_TABLE (those of the
// coefficient tables) and, before this file,
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

// The word at bit `shift` (0..31) of hi:lo.
QGPU_MATH_FN unsigned __qgpu_funnel(unsigned hi, unsigned lo, int shift) {
    return (hi << shift) | ((lo >> 1) >> (31 - shift));
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

// Horner's rule over n fixed-point coefficients, highest degree first, at v = u * 2^32 (each step adds the next
// coefficient to the high word of the product, `exact` or within 2 below it): a loop over a table in global memory,
// so that a polynomial takes the ROM of one step (polynomials were the bulk of these functions' code). Signed, and
// unsigned for u in [0, 1).
QGPU_MATH_FN int __qgpu_horner(const int* c, int n, int v, unsigned exact = 0u) {
    int p = c[0];
#pragma unroll 1
    for (int i = 1; i < n; ++i) p = c[i] + (exact ? __mulhi(p, v) : __qgpu_mulhi_s(p, v));
    return p;
}
QGPU_MATH_FN unsigned __qgpu_horner_u(const unsigned* c, int n, unsigned v) {
    unsigned p = c[0];
#pragma unroll 1
    for (int i = 1; i < n; ++i) p = c[i] + __qgpu_mulhi_u(p, v);
    return p;
}

// A finite non-zero |x| (its bits `magnitude`) as sig * 2^(e - 31), sig in [2^31, 2^32): returns e.
QGPU_MATH_FN int __qgpu_unpack(unsigned magnitude, unsigned& sig) {
    unsigned field = magnitude >> 23;
    if (field == 0u) {  // subnormal
        int lead = __clz((int)magnitude);
        sig = magnitude << lead;
        return -118 - lead;
    }
    sig = (magnitude << 8) | 0x80000000u;
    return int(field) - 127;
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

// 2^31 / n in Q1.31 for n = N * 2^-32 in (1/2, 1) (N above 2^31), within 2^-29: Newton's iteration
// y <- y (2 - n y) from the first guess 48/17 - 32/17 n (within 1/17), in a loop (the ROM is the limit).
QGPU_MATH_FN unsigned __qgpu_reciprocal(unsigned N) {
    unsigned y = __qgpu_mulhi_u(0x80000000u - N, 0xf0f0f0f1u);  // 32/17 (3/2 - n), Q1.31
#pragma unroll 1
    for (int i = 0; i < 3; ++i) y = __qgpu_mulhi_u(y, 0u - __qgpu_mulhi_u(N, y)) << 1;
    return y;
}

// ---- exponentials ----------------------------------------------------------------------------------

// 2^(f / 2^32) for f in [0, 2^32), in Q1.31: a degree-7 polynomial in f / 2^32 (a Chebyshev fit, error
// 2^-34) by Horner's rule, within 2^-28 of the result.
QGPU_MATH_TABLE unsigned __qgpu_exp2_coefficients[7] = {0xb58du,    0x4afc9u,    0x2c0161u,  0x13b046eu,
                                                        0x71acc0du, 0x1ebfbcc3u, 0x58b90c0bu};
QGPU_MATH_FN unsigned __qgpu_exp2_fraction(unsigned f) {
    // the last step exact: what it truncates stays in the result
    return 0x80000000u + __umulhi(__qgpu_horner_u(__qgpu_exp2_coefficients, 7, f), f);
}

// 2^(k + f / 2^32), rounded.
QGPU_MATH_FN float __qgpu_exp2_split(int k, unsigned f) {
    return __qgpu_round_pack(0u, k, __qgpu_exp2_fraction(f), f != 0u);
}

// |x| log2 b = whole + f / 2^32 for |x| < 256 (`magnitude`: x's bits without the sign) and log2 b =
// (lh:ll) * 2^-62 (below 4): the exact product of x's significand and the 64-bit constant, split into its
// integer part (returned) and 32 bits of fraction.
QGPU_MATH_FN unsigned __qgpu_times_log2(unsigned magnitude, unsigned lh, unsigned ll, unsigned& f) {
    unsigned field = magnitude >> 23;
    unsigned m = (magnitude & 0x7fffffu) | (field != 0u ? 0x800000u : 0u);
    int e = (field != 0u ? int(field) : 1) - 150;             // |x| = m * 2^e
    unsigned mid = __qgpu_mulhi_u(m, ll), lo = m * lh + mid;  // mid: the low constant word's part, to 2^-60
    unsigned hi = __umulhi(m, lh) + (lo < mid);
    int n = -2 - e;  // |x| log2 b = hi:lo * 2^-(n + 32), n >= 14
    f = n >= 64 ? 0u : n >= 32 ? hi >> (n - 32) : (lo >> n) | (hi << (32 - n));
    return n >= 32 ? 0u : hi >> n;
}

// b^x = 2^(x log2 b) for log2 b = (lh:ll) * 2^-62.
QGPU_MATH_FN float __qgpu_exp_base(float x, unsigned lh, unsigned ll) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu;
    if (magnitude >= 0x43800000u)  // NaN, or |x| >= 256: infinity or 0
        return __uint_as_float(magnitude > 0x7f800000u ? 0x7fffffffu : (bits >> 31) ? 0u : 0x7f800000u);
    unsigned f;
    int k = int(__qgpu_times_log2(magnitude, lh, ll, f));
    if (bits >> 31) {  // -(k + f) = -(k + 1) + (1 - f)
        k = f != 0u ? -k - 1 : -k;
        f = 0u - f;
    }
    return __qgpu_exp2_split(k, f);
}

QGPU_MATH_FN float expf(float x) { return __qgpu_exp_base(x, 0x5c551d94u, 0xae0bf85eu); }
QGPU_MATH_FN float exp2f(float x) { return __qgpu_exp_base(x, 0x40000000u, 0u); }
QGPU_MATH_FN float exp10f(float x) { return __qgpu_exp_base(x, 0xd49a784bu, 0xcd1b8afeu); }

// |x| log2 e = k + f / 2^32 for |x| < 256, from its bits without the sign.
QGPU_MATH_FN int __qgpu_times_log2e(unsigned magnitude, unsigned& f) {
    return int(__qgpu_times_log2(magnitude, 0x5c551d94u, 0xae0bf85eu, f));
}

// e^x - 1. Below 0.34375 in magnitude, x Q(x) with Q(x) = (e^x - 1) / x of degree 8 (Taylor's, error 2^-35) in
// Q2.30 and x's whole significand: no cancellation. Elsewhere e^x = p 2^(k - 31) as expf has it, less 1 on p's
// scale (at least 30 bits remain; past 2^31 the 1 is below p's last bit); below -17.3 it rounds to -1.
QGPU_MATH_TABLE int __qgpu_expm1_over_coefficients[9] = {0xb8f,    0x6807,    0x34034,    0x16c16c,  0x888889,
                                                         0x2aaaaab, 0xaaaaaab, 0x20000000, 0x40000000};
QGPU_MATH_FN float expm1f(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, negative = bits >> 31, sig, f, hi, lo;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (magnitude < 0x33000000u) return x;  // |x| < 2^-25: rounds to x
    if (magnitude >= 0x43800000u) return negative ? -1.0f : __uint_as_float(0x7f800000u);
    int fraction;  // e^x - 1 = hi:lo * 2^-fraction
    if (magnitude < 0x3eb00000u) {
        int e = __qgpu_unpack(magnitude, sig), v = int(__qgpu_word_at(0u, sig, -e - 1));  // |x| * 2^32
        v = negative ? -v : v;
        int q = __qgpu_horner(__qgpu_expm1_over_coefficients, 9, v);  // Q(x) * 2^30
        hi = __umulhi(sig, unsigned(q));
        lo = sig * unsigned(q);
        if (negative) {
            lo = 0u - lo;
            hi = ~hi + (lo == 0u);
        }
        fraction = 61 - e;
    } else {
        int k = __qgpu_times_log2e(magnitude, f);
        if (negative) {  // -(k + f) = -(k + 1) + (1 - f)
            k = f != 0u ? -k - 1 : -k;
            f = 0u - f;
        }
        if (k < -25) return -1.0f;
        unsigned p = __qgpu_exp2_fraction(f);  // e^x = p * 2^(k - 31): e^x - 1 = lo * 2^-(31 - max(k, 0))
        lo = k >= 0 ? p - (k < 32 ? 0x80000000u >> k : 0u) : (p >> -k) - 0x80000000u;
        hi = k >= 0 ? 0u : 0xffffffffu;
        fraction = k >= 0 ? 31 - k : 31;
    }
    return __qgpu_fixed_to_float(hi, lo, fraction);
}

// ---- logarithms ------------------------------------------------------------------------------------

// H(u) = log2(1 + u) / u for u in [sqrt(1/2) - 1, sqrt(2) - 1): degree 11 (a Chebyshev fit, error 2^-32).
QGPU_MATH_TABLE int __qgpu_log2_over_coefficients[12] = {
    -0x565bf83, 0x9d22bfc,   -0xa0fffdd, 0xa322f2d,   -0xb75934c,  0xd304727,
    -0xf6465d9, 0x12777695, -0x1715438f, 0x1ec709b6, -0x2e2a8ecf, 0x5c551d95};
QGPU_MATH_FN int __qgpu_log2_over(int v) { return __qgpu_horner(__qgpu_log2_over_coefficients, 12, v); }

// u * 2^32 for sig * 2^(e - 31) = 2^e (1 + u) with 1 + u in [sqrt(1/2), sqrt(2)) (e moves up by one where sig
// is above sqrt(2) * 2^31), exactly.
QGPU_MATH_FN int __qgpu_log2_argument(unsigned sig, int& e) {
    if (sig > 0xb504f333u) {
        e += 1;
        return int(sig);  // sig - 2^32
    }
    return int((sig - 0x80000000u) << 1);
}

// e + u H(u) = log2 of 2^e (1 + u) as the signed 64-bit fixed-point number hi:lo * 2^-54, from v = u * 2^32 and
// h = H(u) * 2^30. log2 of an x near 1 keeps its relative accuracy.
QGPU_MATH_FN void __qgpu_log2_sum(int e, int v, int h, unsigned& hi, unsigned& lo) {
    unsigned high = unsigned(__mulhi(v, h));  // u H(u) * 2^62
    lo = ((unsigned(v) * unsigned(h)) >> 8) | (high << 24);
    hi = unsigned(int(high) >> 8) + (unsigned(e) << 22);
}

// The signed 64-bit fixed-point number hi:lo times c in Q0.32 (the top 64 bits of the 96-bit product of its
// magnitude), keeping its fraction bits.
QGPU_MATH_FN void __qgpu_times_fraction(unsigned& hi, unsigned& lo, unsigned c) {
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

// log_b x = log2 x * c for c = log_b 2 in Q0.32 (0: base 2), after the IEEE cases.
QGPU_MATH_FN float __qgpu_log_base(float x, unsigned c) {
    unsigned bits = __float_as_uint(x), sig, hi, lo;
    if (bits > 0x7f800000u && bits != 0x80000000u) return __uint_as_float(0x7fffffffu);  // NaN, x < 0
    if ((bits & 0x7fffffffu) == 0u) return __uint_as_float(0xff800000u);                 // -inf at +-0
    if (bits == 0x7f800000u) return x;
    int e = __qgpu_unpack(bits, sig);
    int v = __qgpu_log2_argument(sig, e);
    __qgpu_log2_sum(e, v, __qgpu_log2_over(v), hi, lo);
    if (c != 0u) __qgpu_times_fraction(hi, lo, c);
    return __qgpu_fixed_to_float(hi, lo, 54);
}

QGPU_MATH_FN float log2f(float x) { return __qgpu_log_base(x, 0u); }
QGPU_MATH_FN float logf(float x) { return __qgpu_log_base(x, 0xb17217f8u); }
QGPU_MATH_FN float log10f(float x) { return __qgpu_log_base(x, 0x4d104d42u); }

// log2(one + u) for u = (-1)^negative * sig * 2^(e - 31) (one: 0 or 1) as hi:lo * 2^-fraction (returned). Where
// |u| < 0.28125 and one is 1, 1 + u is 1 + u for the polynomial itself: u H(u) from u's whole significand keeps
// the relative accuracy of a tiny result. Elsewhere one + u is summed in a word (exactly: sig's two low bits
// are 0, or below its last bit past 2^30) and goes to log2.
QGPU_MATH_FN int __qgpu_log2_1p(unsigned sig, int e, unsigned negative, unsigned one, unsigned& hi, unsigned& lo) {
    unsigned small = one && (e < -2 || (e == -2 && sig < 0x90000000u));
    int v;
    if (small) {
        v = int(__qgpu_word_at(0u, sig, -e - 1));  // |u| * 2^32
        v = negative ? -v : v;
    } else {  // one + u = sum * 2^(e - 29)
        unsigned sum = (one && e < 30 ? 1u << (29 - e) : 0u) + (negative ? 0u - (sig >> 2) : sig >> 2);
        int lead = __clz(int(sum));
        sig = sum << lead;
        e += 2 - lead;
        v = __qgpu_log2_argument(sig, e);
    }
    int h = __qgpu_log2_over(v);
    if (!small) {
        __qgpu_log2_sum(e, v, h, hi, lo);
        return 54;
    }
    lo = sig * unsigned(h);  // |u| H(u) * 2^(61 - e), with u's sign
    hi = __umulhi(sig, unsigned(h));
    if (negative) {
        lo = 0u - lo;
        hi = ~hi + (lo == 0u);
    }
    return 61 - e;
}

// A log2 as a natural logarithm (times ln 2), rounded.
QGPU_MATH_FN float __qgpu_ln_of_log2(unsigned hi, unsigned lo, int fraction) {
    __qgpu_times_fraction(hi, lo, 0xb17217f8u);
    return __qgpu_fixed_to_float(hi, lo, fraction);
}

QGPU_MATH_FN float log1pf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, sig, hi, lo;
    if (magnitude > 0x7f800000u || bits > 0xbf800000u) return __uint_as_float(0x7fffffffu);  // NaN, x < -1
    if (bits == 0xbf800000u) return __uint_as_float(0xff800000u);
    if (magnitude < 0x33000000u || bits == 0x7f800000u) return x;  // |x| < 2^-25 rounds to x; +inf
    int e = __qgpu_unpack(magnitude, sig);
    int fraction = __qgpu_log2_1p(sig, e, bits >> 31, 1u, hi, lo);
    return __qgpu_ln_of_log2(hi, lo, fraction);
}

// ---- powers ----------------------------------------------------------------------------------------

// Whether y (its bits without the sign, finite and not 0) is an integer (1 odd, 2 even) or not (0).
QGPU_MATH_FN unsigned __qgpu_integer_kind(unsigned magnitude) {
    int e = int(magnitude >> 23) - 127;
    if (e > 23) return 2u;
    if (e < 0 || (magnitude & (0x7fffffu >> e)) != 0u) return 0u;
    return 2u - (((magnitude | 0x800000u) >> (23 - e)) & 1u);
}

// log2 x for a positive finite x (its bits) as the signed hi:lo * 2^-54, to about 2^-33 of relative accuracy (where
// a large power multiplies its error): e + u H(u) with H(u) = log2(e) + u P(u), P with exact products, u P(u)
// and log2(e) to 64 bits (their high words in the sum, u times their low words added after it).
QGPU_MATH_FN void __qgpu_log2_accurate(unsigned bits, unsigned& hi, unsigned& lo) {
    unsigned sig;
    int e = __qgpu_unpack(bits, sig), v = __qgpu_log2_argument(sig, e);
    int p = __qgpu_horner(__qgpu_log2_over_coefficients, 11, v, 1u), w = __mulhi(p, v);  // u P(u) * 2^30
    unsigned rest = unsigned(p) * unsigned(v);                                           // and below it
    __qgpu_log2_sum(e, v, 0x5c551d94 + w, hi, lo);
    int low = __qgpu_mulhi_s(v, int((0xae0bf85eu >> 2) + (rest >> 2))) >> 6;
    unsigned long long sum = ((unsigned long long)hi << 32 | lo) + (long long)low;
    hi = unsigned(sum >> 32);
    lo = unsigned(sum);
}

// x^y = 2^(y log2 |x|) with the sign (-1)^y where x < 0 and y is an integer, and C99's special cases: the top 32
// bits of log2 |x| times y's significand exactly, and the product's integer part and 32 bits of fraction to
// exp2f's polynomial.
QGPU_MATH_FN float powf(float x, float y) {
    unsigned bx = __float_as_uint(x), by = __float_as_uint(y), mx = bx & 0x7fffffffu, my = by & 0x7fffffffu;
    if (my == 0u || bx == 0x3f800000u) return 1.0f;  // x^0 and 1^y, even for a NaN
    if (mx > 0x7f800000u || my > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    unsigned kind = my == 0x7f800000u ? 2u : __qgpu_integer_kind(my), negative = by >> 31, hi, lo, f;
    unsigned sign = (bx >> 31) && kind == 1u ? 0x80000000u : 0u;
    if (my == 0x7f800000u) {  // |x| = 1 gives 1; else 0 or infinity as |x| and y take it
        if (mx == 0x3f800000u) return 1.0f;
        return __uint_as_float((mx > 0x3f800000u) != negative ? 0x7f800000u : 0u);
    }
    if (mx == 0u || mx == 0x7f800000u) return __uint_as_float(sign | ((mx == 0u) == negative ? 0x7f800000u : 0u));
    if ((bx >> 31) && kind == 0u) return __uint_as_float(0x7fffffffu);  // a negative x to a fraction
    if (my < 0x00800000u) return 1.0f;                                   // |y log2 |x|| < 2^-118
    __qgpu_log2_accurate(mx, hi, lo);
    unsigned down = hi >> 31;  // |x| < 1
    if (down) {
        lo = 0u - lo;
        hi = ~hi + (lo == 0u);
    }
    if ((hi | lo) == 0u) return __uint_as_float(sign | 0x3f800000u);  // x = -1
    int lead = 0;
    if (hi == 0u) {
        hi = lo;
        lo = 0u;
        lead = 32;
    }
    int shift = __clz(int(hi));
    unsigned top = __qgpu_funnel(hi, lo, shift), m = (my & 0x7fffffu) | 0x800000u;
    top += ((lo << shift) >> 31) & (top != 0xffffffffu);  // rounded
    lead += shift;
    // |log2 |x|| = top * 2^(-22 - lead) and |y| = m * 2^(ey - 23): |y log2 |x|| = m top * 2^-(32 + n), at least
    // 2^(22 - n)
    int n = 140 + lead - int(my >> 23);
    unsigned below = down ^ negative;  // y log2 |x| < 0
    if (n <= 13) return __uint_as_float(sign | (below ? 0u : 0x7f800000u));  // past 2^9: 0 or infinity
    unsigned ph = __umulhi(m, top), pl = m * top;
    int k = 0;  // |y log2 |x|| = k + f / 2^32
    if (n >= 32) {
        f = n < 64 ? ph >> (n - 32) : 0u;
    } else {
        f = __qgpu_funnel(ph, pl, 32 - n);
        k = int(ph >> n);
    }
    if (below) {  // -(k + f) = -(k + 1) + (1 - f)
        k = f != 0u ? -k - 1 : -k;
        f = 0u - f;
    }
    float r = __qgpu_exp2_split(k, f);
    return __uint_as_float(__float_as_uint(r) | sign);
}

// ---- reciprocal square root ------------------------------------------------------------------------

// 1 / sqrt(x) for a positive finite x (its bits) as y * 2^(-31 - e) (returned: e) with y in Q1.31, within 2^-27
// of the root: x = a * 2^(2e) with a = M * 2^-23 in [1, 4) (M returned), then Newton's iteration
// y <- y (3 - a y^2) / 2 from a linear first guess, in fixed point: five steps reach the 28 bits it keeps.
QGPU_MATH_FN int __qgpu_rsqrt(unsigned bits, unsigned& M, unsigned& y) {
    unsigned sig;
    int e = __qgpu_unpack(bits, sig);
    M = sig >> 8;
    if (e & 1) {  // an odd exponent: a in [2, 4)
        M <<= 1;
        e -= 1;
    }
    unsigned a = M << 7;              // a in Q2.30
    y = 0x8b851eb8u - (a >> 4) * 5u;  // Q1.31: 1.09 - 0.15625 a, within 11%
    for (int i = 0; i < 5; ++i) {
        unsigned ay2 = __qgpu_mulhi_u(a, __qgpu_mulhi_u(y, y) << 1);  // a y^2 in Q3.29 (y^2 in Q1.31)
        unsigned t = 0x60000000u - ay2;                               // 3 - a y^2, Q3.29, in (0, 3)
        y = __qgpu_mulhi_u(y, t) << 2;                                // y t / 2, Q1.31
    }
    return e / 2;
}

QGPU_MATH_FN float rsqrtf(float x) {
    unsigned bits = __float_as_uint(x), M, y;
    if ((bits & 0x7fffffffu) == 0u) return __uint_as_float((bits & 0x80000000u) | 0x7f800000u);  // +-inf
    if (bits > 0x7f800000u) return __uint_as_float(0x7fffffffu);                                 // NaN, x < 0
    if (bits == 0x7f800000u) return 0.0f;
    int e = __qgpu_rsqrt(bits, M, y);  // 1/sqrt(x) = y * 2^(-31 - e) with y in (2^30, 2^31]
    if (y >= 0x80000000u) return __qgpu_round_pack(0u, -e, y, 0u);
    return __qgpu_round_pack(0u, -e - 1, y << 1, 1u);
}

// 1 / sqrt(x) correctly rounded: y's 24 bits below the point, Q, and Q + 1 where the root lies above the
// midpoint (Q + 1/2) * 2^-24, which holds when (2Q + 1)^2 M < 2^73, an exact product of three words (y is within
// 2^-27, so the root lies within one unit of Q). The root of a = 1 is exact; others are irrational.
QGPU_MATH_FN float __frsqrt_rn(float x) {
    unsigned bits = __float_as_uint(x), M, y;
    if ((bits & 0x7fffffffu) == 0u || bits >= 0x7f800000u) return rsqrtf(x);
    int e = __qgpu_rsqrt(bits, M, y);
    if (M == 0x800000u) return __qgpu_round_pack(0u, -e, 0x80000000u, 0u);
    y = y >= 0x80000000u ? 0x7fffffffu : y < 0x40000000u ? 0x40000000u : y;  // 1/sqrt(a) is in (1/2, 1)
    unsigned q = y >> 7, d = 2u * q + 1u, hi = __umulhi(d, d), lo = d * d;
    unsigned mid = __umulhi(lo, M), low = hi * M + mid;
    unsigned top = __umulhi(hi, M) + (low < mid);  // bits 64.. of (2Q + 1)^2 M
    q += top < 512u;
    if (q == 0x1000000u) return __qgpu_round_pack(0u, -e, 0x80000000u, 0u);  // a root just below 1 rounds up to 1
    return __qgpu_round_pack(0u, -e - 1, q << 8, 0u);
}

// ---- cube roots -----------------------------------------------------------------------------------

// |x|^(-1/3) (x finite, not 0) as w * 2^(-31 - k) with w in Q1.31, and |x|^(1/3) as y * 2^(k - 28): |x| = a 8^k
// with a in [1, 8), and Newton's iteration w <- w + w (1 - a w^3) / 3 for w = a^(-1/3) from a linear guess
// per binade of a (within 2.6%), in fixed point with exact products (truncated ones bias w by 2^-27).
QGPU_MATH_FN unsigned __qgpu_cube_root(unsigned magnitude, int& k, unsigned& y) {
    unsigned sig;
    int e = __qgpu_unpack(magnitude, sig);
    k = e >= 0 ? e / 3 : -((2 - e) / 3);  // floor(e / 3)
    int r = e - 3 * k;                    // a = (sig / 2^31) 2^r
    unsigned A = sig >> (2 - r);          // a * 2^29
    unsigned t = 0x80000000u - (__qgpu_mulhi_u(sig << 1, 0x34d00ad6u) >> 1);  // 1 - (1 - 2^(-1/3)) (m - 1)
    unsigned w = r == 0 ? t : __qgpu_mulhi_u(t, r == 1 ? 0xcb2ff52au : 0xa14517ccu);  // times 2^(-r/3)
#pragma unroll 1
    for (int i = 0; i < 3; ++i) {
        unsigned q = __umulhi(__umulhi(w, w) << 1, A);           // a w^2 * 2^28
        int err = int(0x20000000u - __umulhi(q << 2, w));        // (1 - a w^3) * 2^29
        int delta = __mulhi(int(w >> 1), err);                   // w (1 - a w^3) * 2^27
        w += unsigned(__mulhi(delta * 16, 0x55555555));          // ... / 3 * 2^31
    }
    y = __umulhi(__umulhi(w, w) << 1, A);  // a^(1/3) = a w^2, * 2^28
    return w;
}

QGPU_MATH_FN float cbrtf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, y;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (magnitude == 0u || magnitude == 0x7f800000u) return x;
    int k;
    __qgpu_cube_root(magnitude, k, y);
    float r = __qgpu_fixed_to_float(0u, y, 28 - k);
    return __uint_as_float(__float_as_uint(r) | (bits & 0x80000000u));
}
QGPU_MATH_FN float rcbrtf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, sign = bits & 0x80000000u, y;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (magnitude == 0u) return __uint_as_float(sign | 0x7f800000u);
    if (magnitude == 0x7f800000u) return __uint_as_float(sign);
    int k;
    unsigned w = __qgpu_cube_root(magnitude, k, y);
    float r = __qgpu_fixed_to_float(0u, w, 31 + k);
    return __uint_as_float(__float_as_uint(r) | sign);
}
