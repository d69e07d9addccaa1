// qgpu's float math library: exponentials, logarithms, powers, roots, trigonometric, hyperbolic and error
// functions, written in 32-bit integer arithmetic (fixed point), so that the same source gives the same bits
// compiled for the machine and for a host, whatever either compiler contracts or reorders. Integer code needs
// no float routine and few registers; its cost is ROM. docs/math.md has the measured accuracy (within 0.8 ulp,
// most results correctly rounded) and the ROM each function takes.
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

// ---- sine and cosine -------------------------------------------------------------------------------


// Word i (0..8) of the bits of 2/pi after the binary point, behind two words of zeros.
QGPU_MATH_FN unsigned __qgpu_two_over_pi_word(int i) {
    return i == 2   ? 0xa2f9836eu
           : i == 3 ? 0x4e441529u
           : i == 4 ? 0xfc2757d1u
           : i == 5 ? 0xf534ddc0u
           : i == 6 ? 0xdb629599u
           : i == 7 ? 0x3c439041u
           : i == 8 ? 0xfe5163abu
                    : 0u;
}

// |x| * 2/pi = q + f for a finite |x| >= 2^-12 (its bits `magnitude`): returns q (modulo 4 it is the
// quadrant) and f in [-1/2, 1/2) as the signed 64-bit fixed-point number fh:fl * 2^-64. Payne and Hanek's
// reduction: the bits of 2/pi whose products with |x| are multiples of 4 are skipped, and the next 96 bits
// multiply |x|'s significand exactly, so f keeps 64 bits however large |x| is.
QGPU_MATH_FN unsigned __qgpu_reduce_half_pi(unsigned magnitude, unsigned& fh, unsigned& fl) {
    unsigned m = ((magnitude & 0x7fffffu) | 0x800000u) << 8;
    int j = int(magnitude >> 23) - 88, sh = j & 31;  // the window starts at bit j
    unsigned z0 = 0u, z1 = 0u, z2 = 0xa2f9836eu, z3 = 0x4e441529u;
    for (int k = 4; k <= (j >> 5) + 3; ++k) {  // words j / 32 .. j / 32 + 3
        z0 = z1;
        z1 = z2;
        z2 = z3;
        z3 = __qgpu_two_over_pi_word(k);
    }
    unsigned w0 = __qgpu_funnel(z0, z1, sh), w1 = __qgpu_funnel(z1, z2, sh), w2 = __qgpu_funnel(z2, z3, sh);
    // p3:p2:p1 = the top 96 bits of m * (w0:w1:w2); |x| * 2/pi = p3:p2:p1 * 2^-70 modulo 4
    unsigned low1 = m * w1, p1 = __qgpu_mulhi_u(m, w2) + low1, c1 = p1 < low1;
    unsigned low0 = m * w0, p2 = __umulhi(m, w1) + low0, c2 = p2 < low0;
    p2 += c1;
    unsigned p3 = __umulhi(m, w0) + c2 + (p2 < c1);
    fh = (p3 << 26) | (p2 >> 6);
    fl = (p2 << 26) | (p1 >> 6);
    return (p3 >> 6) + (fh >> 31);  // rounding f into [-1/2, 1/2) moves q up by one
}

// sin(pi/2 f) (odd 0) or cos(pi/2 f) (odd 1) for f = fh:fl * 2^-64 in [0, 1/2]: f S(f^2) or C(f^2), with
// S and C of degree 4 (Chebyshev fits, within 2^-34) by Horner's rule in Q2.30.
QGPU_MATH_FN float __qgpu_sin_cos_half_pi(unsigned fh, unsigned fl, unsigned odd) {
    int z = int(__qgpu_mulhi_u(fh, fh));  // f^2 in Q0.32
    int p = odd ? 0xece17 : 0x29791;  // unrolled: a loop here needs registers the reduction keeps
    p = (odd ? -0x155c579 : -0x4cb2a7) + __qgpu_mulhi_s(p, z);
    p = (odd ? 0x103c1dc1 : 0x519aeeb) + __qgpu_mulhi_s(p, z);
    p = (odd ? -0x4ef4f31d : -0x295779cb) + __qgpu_mulhi_s(p, z);
    p = (odd ? 0x40000000 : 0x6487ed51) + __qgpu_mulhi_s(p, z);  // C(f^2) or S(f^2), times 2^30
    unsigned hi = fh != 0u ? fh : fl, lo = fh != 0u ? fl : 0u;  // f = hi:lo * 2^-(64 + drop)
    int drop = fh != 0u ? 0 : 32, lead = __clz((int)hi);
    unsigned v = odd ? unsigned(p) : __qgpu_mulhi_u(__qgpu_funnel(hi, lo, lead), unsigned(p));
    return __qgpu_fixed_to_float(0u, v, odd ? 30 : 30 + lead + drop);  // f = funnel * 2^-(32 + lead + drop)
}

// sin(pi/2 (q + f)) for q + f = |x| 2/pi from the reduction: `quadrant` holds q in bits 0..1 and the sign
// of f in bit 2. In quadrant q it is +-sin(pi/2 |f|) or +-cos(pi/2 |f|). sin x for a negative x is
// sin(|x| + pi) (q + 2), and cos x is sin(|x| + pi/2) (q + 1).
QGPU_MATH_FN float __qgpu_sin_quadrant(unsigned quadrant, unsigned fh, unsigned fl) {
    if (quadrant & 4u) {  // |f|
        fl = 0u - fl;
        fh = ~fh + (fl == 0u);
    }
    float v = __qgpu_sin_cos_half_pi(fh, fl, quadrant & 1u);
    unsigned sign = ((quadrant & 1u) ? 0u : quadrant >> 2) ^ (quadrant >> 1);
    return __uint_as_float(__float_as_uint(v) ^ (sign << 31));
}

// The reduction of a finite |x| >= 2^-12 for __qgpu_sin_quadrant: the quadrant word of sin |x|.
QGPU_MATH_FN unsigned __qgpu_sin_reduce(unsigned magnitude, unsigned& fh, unsigned& fl) {
    unsigned q = __qgpu_reduce_half_pi(magnitude, fh, fl);
    return (q & 3u) | ((fh >> 31) << 2);
}

QGPU_MATH_FN void sincosf(float x, float* sine, float* cosine) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, fh, fl;
    if (magnitude >= 0x7f800000u) {  // NaN or infinity
        *sine = *cosine = __uint_as_float(0x7fffffffu);
    } else if (magnitude < 0x39800000u) {  // |x| < 2^-12: sin x rounds to x, cos x to 1
        *sine = x;
        *cosine = 1.0f;
    } else {
        unsigned quadrant = __qgpu_sin_reduce(magnitude, fh, fl);
        unsigned q = quadrant + ((bits >> 31) << 1);  // sin x's, then cos x's = sin(|x| + pi/2)
#pragma unroll 1
        for (int c = 0; c < 2; ++c) {  // one copy of the code for both: the ROM is the limit
            float v = __qgpu_sin_quadrant((q & 3u) | (quadrant & 4u), fh, fl);
            if (c)
                *cosine = v;
            else
                *sine = v;
            q = quadrant + 1u;
        }
    }
}
QGPU_MATH_FN float __qgpu_sin_cos(float x, unsigned cosine) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, fh, fl;
    if (magnitude >= 0x7f800000u) return __uint_as_float(0x7fffffffu);  // NaN or infinity
    if (magnitude < 0x39800000u) return cosine ? 1.0f : x;              // |x| < 2^-12
    unsigned quadrant = __qgpu_sin_reduce(magnitude, fh, fl);
    unsigned q = quadrant + (cosine ? 1u : (bits >> 31) << 1);
    return __qgpu_sin_quadrant((q & 3u) | (quadrant & 4u), fh, fl);
}
QGPU_MATH_FN float sinf(float x) { return __qgpu_sin_cos(x, 0u); }
QGPU_MATH_FN float cosf(float x) { return __qgpu_sin_cos(x, 1u); }

// tan x = tan(pi/2 (q + f)) for |x| 2/pi = q + f from sinf's reduction: tan(pi/2 |f|) = |f| T(f^2) where q is
// even, with T of degree 8 (a least-squares fit, within 2^-32) in Q4.28; where q is odd, -cot(pi/2 f), its Newton
// reciprocal (within 2^-29).
QGPU_MATH_TABLE int __qgpu_tan_over_coefficients[9] = {0x4755967b, -0x93ca4bf, 0x1cb36fd3, 0x130fdf14, 0x147d9d63,
                                                       0x145e79af, 0x1466c623, 0x14abbcce, 0x1921fb54};
QGPU_MATH_FN float tanf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, fh, fl;
    if (magnitude >= 0x7f800000u) return __uint_as_float(0x7fffffffu);  // NaN or infinity
    if (magnitude < 0x39800000u) return x;                               // |x| < 2^-12: rounds to x
    unsigned quadrant = __qgpu_sin_reduce(magnitude, fh, fl), odd = quadrant & 1u;
    if (quadrant & 4u) {  // |f|
        fl = 0u - fl;
        fh = ~fh + (fl == 0u);
    }
    int t = __qgpu_horner(__qgpu_tan_over_coefficients, 9, int(__qgpu_mulhi_u(fh, fh)));  // T(f^2) * 2^28
    unsigned hi = fh != 0u ? fh : fl, lo = fh != 0u ? fl : 0u;                          // |f| = hi:lo * 2^-(64 + drop)
    int drop = fh != 0u ? 0 : 32, lead = __clz((int)hi), fraction = 28 + lead + drop;
    unsigned v = __umulhi(__qgpu_funnel(hi, lo, lead), unsigned(t));  // tan(pi/2 |f|) = v * 2^-fraction
    if (odd) {  // 1 / v = y * 2^(-31 - top) with y = 2^63 / (v << top)
        int top = __clz(int(v));
        v <<= top;
        v = v == 0x80000000u ? 0xffffffffu : __qgpu_reciprocal(v);
        fraction = 63 - fraction - top;
    }
    float r = __qgpu_fixed_to_float(0u, v, fraction);
    unsigned sign = (bits >> 31) ^ (quadrant >> 2) ^ odd;
    return __uint_as_float(__float_as_uint(r) | (sign << 31));
}

// sin(pi x) (cosine 0) or cos(pi x) = sin(pi (x + 1/2)) (cosine 1): 2|x| = q + f needs no constant, so the
// reduction is exact: q and f are the bits of x's significand above and below the point. Where f is 0 the
// result is exact: +-1, or a zero (+0 for cos, and sin(pi n) with n's sign, as IEEE-754's sinPi).
QGPU_MATH_FN float __qgpu_sin_cos_pi(float x, unsigned cosine) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, sign = bits & 0x80000000u, sig;
    if (magnitude >= 0x7f800000u) return __uint_as_float(0x7fffffffu);  // NaN or infinity
    int e = __qgpu_unpack(magnitude | unsigned(magnitude == 0u), sig);  // (a zero returns below)
    if (magnitude < 0x38800000u) {  // |x| < 2^-14: cos(pi x) rounds to 1, sin(pi x) to pi x
        if (cosine) return 1.0f;
        unsigned hi = __umulhi(sig, 0xc90fdaa2u), lo = sig * 0xc90fdaa2u;  // |x| pi = hi:lo * 2^(e - 61)
        float t = __qgpu_fixed_to_float(hi >> 1, (lo >> 1) | (hi << 31), 60 - e);
        return __uint_as_float(magnitude == 0u ? bits : __float_as_uint(t) | sign);
    }
    int n = e > 30 ? 64 : 30 - e;  // 2|x| = sig * 2^-n: q the bits above the point, f * 2^64 those below
    unsigned q = __qgpu_word_at(0u, sig, n), fh = __qgpu_word_at(sig, 0u, n);
    unsigned fl = n < 32 ? 0u : __qgpu_word_at(sig, 0u, n - 32);
    if (e > 30) fh = fl = 0u;  // 2|x| is a multiple of 4
    q += (fh >> 31) + (cosine ? 1u : sign >> 30);  // f in [-1/2, 1/2); sin(-y) = sin(y + pi), cos y = sin(y + pi/2)
    if ((fh | fl) == 0u) {
        if (q & 1u) return __uint_as_float(((q & 2u) << 30) | 0x3f800000u);
        return __uint_as_float(cosine ? 0u : sign);
    }
    return __qgpu_sin_quadrant((q & 3u) | ((fh >> 31) << 2), fh, fl);
}
QGPU_MATH_FN float sinpif(float x) { return __qgpu_sin_cos_pi(x, 0u); }
QGPU_MATH_FN float cospif(float x) { return __qgpu_sin_cos_pi(x, 1u); }

// ---- hyperbolic tangent ----------------------------------------------------------------------------


// tanh x: x T(x^2) below 1/2, with T of degree 6 (a Chebyshev fit, error 2^-37) in Q2.30; from there to 10,
// 1 - 2 / (e^(2|x|) + 1) in fixed point; beyond, +-1.
QGPU_MATH_TABLE int __qgpu_tanh_over_coefficients[7] = {0x29cfee,  -0x8bc0e2,   0x16568d9, -0x3742379,
                                                        0x88887b8, -0x15555552, 0x40000000};
QGPU_MATH_FN float tanhf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, v;
    int fraction;  // |tanh x| = v * 2^-fraction
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (magnitude < 0x39800000u) return x;  // |x| < 2^-12: tanh x rounds to x
    if (magnitude >= 0x41200000u) return __uint_as_float((bits & 0x80000000u) | 0x3f800000u);
    if (magnitude < 0x3f000000u) {
        int e = int(magnitude >> 23) - 150;  // |x| = sig * 2^(e - 8)
        unsigned sig = ((magnitude & 0x7fffffu) | 0x800000u) << 8, x32 = __qgpu_word_at(0u, sig, -e - 24);
        int z = int(__qgpu_mulhi_u(x32, x32));                  // z = x^2 in Q0.32
        int t = __qgpu_horner(__qgpu_tanh_over_coefficients, 7, z);  // T(x^2) * 2^30
        v = __qgpu_mulhi_u(sig, unsigned(t));
        fraction = 6 - e;
    } else {
        unsigned f;
        int k = int(__qgpu_times_log2(magnitude, 0xb8aa3b29u, 0x5c17f0bcu, f));  // 2|x| log2 e = k + f/2^32
        // e^(2|x|) + 1 = (p + 2^(31 - k)) * 2^(k - 31) = d * 2^(k - 30), d in [2^30, 2^31 + 2^29)
        unsigned d = (__qgpu_exp2_fraction(f) >> 1) + (0x40000000u >> k);
        int c = __clz((int)d);                                  // 0 or 1
        unsigned y = __qgpu_reciprocal(d << c);                 // 2^63 / (d << c)
        v = 0u - (y >> (k - c));                                // 1 - 2 / (e^(2|x|) + 1), times 2^32
        fraction = 32;
    }
    float t = __qgpu_fixed_to_float(0u, v, fraction);
    return __uint_as_float(__float_as_uint(t) | (bits & 0x80000000u));
}

// cosh x (odd 0) or sinh x (odd 1): (e^|x| +- e^-|x|) / 2 in fixed point, e^|x| = p 2^(k - 31) as expf has it
// and e^-|x| its Newton reciprocal (left out from 2^15 up, below 2^-30 of the sum). sinh x below 1/2 is
// x S(x^2) instead, with S = sinh(x) / x of degree 4 (Taylor's, error 2^-35) in Q2.30: no cancellation.
QGPU_MATH_TABLE int __qgpu_sinh_over_coefficients[5] = {0xb8f, 0x34034, 0x888889, 0xaaaaaab, 0x40000000};
QGPU_MATH_FN float __qgpu_cosh_sinh(float x, unsigned odd) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, sign = odd ? bits & 0x80000000u : 0u;
    unsigned f, hi, lo;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (magnitude >= 0x43800000u) return __uint_as_float(sign | 0x7f800000u);
    if (magnitude < 0x39800000u) return odd ? x : 1.0f;  // |x| < 2^-12: x, or 1
    int fraction;  // the magnitude is hi:lo * 2^-fraction
    if (odd && magnitude < 0x3f000000u) {
        unsigned sig;
        int e = __qgpu_unpack(magnitude, sig), z = int(__qgpu_mulhi_u(sig, sig) >> (-2 * e - 2));  // x^2 * 2^32
        int q = __qgpu_horner(__qgpu_sinh_over_coefficients, 5, z);  // S(x^2) * 2^30
        hi = __umulhi(sig, unsigned(q));
        lo = sig * unsigned(q);
        fraction = 61 - e;
    } else {
        int k = __qgpu_times_log2e(magnitude, f);
        unsigned p = __qgpu_exp2_fraction(f), b = 0u;  // e^-|x| at fraction 30 - k, e^|x| there being p / 2
        if (k < 15) b = (p == 0x80000000u ? 0xffffffffu : __qgpu_reciprocal(p)) >> (2 * k + 2);  // 2^63 / p
        hi = 0u;
        lo = odd ? (p >> 1) - b : (p >> 1) + b;
        fraction = 31 - k;
    }
    float r = __qgpu_fixed_to_float(hi, lo, fraction);
    return __uint_as_float(__float_as_uint(r) | sign);
}
QGPU_MATH_FN float coshf(float x) { return __qgpu_cosh_sinh(x, 0u); }
QGPU_MATH_FN float sinhf(float x) { return __qgpu_cosh_sinh(x, 1u); }

// atanh x = log1p(2 |x| / (1 - |x|)) / 2 with x's sign: 1 - |x| to 32 bits, its Newton reciprocal, and the
// quotient to 32 bits of relative accuracy, so that log1p's polynomial keeps that of a tiny x.
QGPU_MATH_FN float atanhf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, sig, hi, lo;
    if (magnitude > 0x3f800000u) return __uint_as_float(0x7fffffffu);  // NaN, |x| > 1
    if (magnitude == 0x3f800000u) return __uint_as_float((bits & 0x80000000u) | 0x7f800000u);
    if (magnitude < 0x39800000u) return x;  // |x| < 2^-12: rounds to x
    int e = __qgpu_unpack(magnitude, sig);
    unsigned d = 0u - __qgpu_word_at(0u, sig, -e - 1);  // (1 - |x|) * 2^32, in (0, 2^32)
    int lead = __clz(int(d));
    d <<= lead;                                                          // 1 / (1 - |x|) = y * 2^(lead - 31)
    unsigned y = d == 0x80000000u ? 0xffffffffu : __qgpu_reciprocal(d);  // 2^63 / d
    unsigned u = __umulhi(sig, y);  // 2 |x| / (1 - |x|) = u * 2^(e + lead - 29), u in [2^30, 2^32)
    int top = u < 0x80000000u;
    int fraction = __qgpu_log2_1p(u << top, e + lead + 2 - top, 0u, 1u, hi, lo);
    __qgpu_times_fraction(hi, lo, 0xb17217f8u);
    float r = __qgpu_fixed_to_float(hi, lo, fraction + 1);
    return __uint_as_float(__float_as_uint(r) | (bits & 0x80000000u));
}

// ---- arc tangents ---------------------------------------------------------------------------------

// atan(u) / u in Q2.30 for u = v * 2^-32 in [0, tan(pi/8)]: a polynomial of degree 6 in u^2 (a Chebyshev
// fit, within 2^-35) by Horner's rule.
QGPU_MATH_FN int __qgpu_atan_over(unsigned v) {  // unrolled: a loop here needs registers atan2f keeps
    int z = int(__qgpu_mulhi_u(v, v)), p = 0x301f1e0;  // z = u^2 in Q0.32
    p = -0x568d7c4 + __qgpu_mulhi_s(p, z);
    p = 0x710c3ae + __qgpu_mulhi_s(p, z);
    p = -0x923e2fe + __qgpu_mulhi_s(p, z);
    p = 0xcccc7d9 + __qgpu_mulhi_s(p, z);
    p = -0x15555548 + __qgpu_mulhi_s(p, z);
    return 0x40000000 + __qgpu_mulhi_s(p, z);
}

// n / d in Q0.32 for n <= d, d > 0 (1 - 2^-32 for n = d), by the reciprocal of d.
QGPU_MATH_FN unsigned __qgpu_quotient(unsigned n, unsigned d) {
    int shift = __clz((int)d);
    n <<= shift;
    d <<= shift;
    unsigned q = d == 0x80000000u ? n << 1 : __qgpu_mulhi_u(n, __qgpu_reciprocal(d)) << 1;
    return n >= d ? 0xffffffffu : q;
}

// base +- atan(u) for u = v * 2^-32 in [0, tan(pi/8)] (flip 1: base - atan), with base in unsigned Q2.30;
// for base 0, u = sig * 2^(e - 31) (sig with its top bit set) gives the relative accuracy a tiny result needs.
QGPU_MATH_FN float __qgpu_atan_finish(unsigned v, unsigned base, unsigned flip, unsigned sig, int e, unsigned sign) {
    unsigned p = unsigned(__qgpu_atan_over(v)), r = __qgpu_mulhi_u(v, p);
    unsigned value = base == 0u ? __qgpu_mulhi_u(sig, p) : flip ? base - r : base + r;
    float t = __qgpu_fixed_to_float(0u, value, base == 0u ? 29 - e : 30);
    return __uint_as_float(__float_as_uint(t) | sign);
}

// atan(y / x) in [-pi, pi], the angle of (x, y). From the smaller magnitude s and the larger l: atan(s / l), or
// pi/4 - atan((l - s) / (l + s)) where s / l passes tan(pi/8); then the quadrant: from the x axis, or pi/2
// from the y axis when |y| > |x| (steep), mirrored for x < 0.
QGPU_MATH_FN float atan2f(float y, float x) {
    unsigned by = __float_as_uint(y), bx = __float_as_uint(x), my = by & 0x7fffffffu, mx = bx & 0x7fffffffu;
    unsigned sign = by & 0x80000000u, west = bx >> 31, sy, sx;
    if (my > 0x7f800000u || mx > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (my == 0u || mx == 0x7f800000u) {  // along the x axis, or y finite and x infinite
        if (my == 0x7f800000u) return __uint_as_float(sign | (west ? 0x4016cbe4u : 0x3f490fdbu));  // 3pi/4, pi/4
        return __uint_as_float(sign | (west ? 0x40490fdbu : 0u));                                  // pi, 0
    }
    if (mx == 0u || my == 0x7f800000u) return __uint_as_float(sign | 0x3fc90fdbu);  // pi/2
    int ey = __qgpu_unpack(my, sy), ex = __qgpu_unpack(mx, sx);
    unsigned steep = my > mx, s = steep ? sx : sy, l = steep ? sy : sx;
    int gap = steep ? ey - ex : ex - ey;  // s / l = (s / l) * 2^-gap, gap >= 0
    unsigned aligned = gap >= 32 ? 0u : s >> gap;
    unsigned mid = aligned > __qgpu_mulhi_u(l, 0x6a09e667u);  // s / l > tan(pi/8)
    unsigned n = mid ? (l >> 1) - (aligned >> 1) : s >> 1, d = mid ? (l >> 1) + (aligned >> 1) : l;
    unsigned v = __qgpu_quotient(n, d);  // below tan(pi/8) s / (2l), and then gap >= 1
    unsigned u = mid ? v : __qgpu_word_at(0u, v, gap - 1);
    // pi/4 or 3pi/4, pi/2, pi, in unsigned Q2.30
    unsigned base = mid ? (west ? 0x96cbe3f9u : 0x3243f6a9u) : steep ? 0x6487ed51u : west ? 0xc90fdaa2u : 0u;
    int lead = __clz(int(v | 1u));  // v is 0 only above tan(pi/8), where v << lead is not used
    return __qgpu_atan_finish(u, base, west ^ steep ^ mid, v << lead, -lead - gap, sign);
}
QGPU_MATH_FN float atanf(float x) { return atan2f(x, 1.0f); }

// ---- hypotenuse ------------------------------------------------------------------------------------

// floor(sqrt(h:l / 2^(64 - 2 bits))) for h:l with its top bit pair not 0 (h >= 2^30), `bits` bits (12 to 29),
// and whether the root of h:l / 2^64 is inexact: a bit pair at a time, in 32-bit words.
QGPU_MATH_FN unsigned __qgpu_isqrt(unsigned h, unsigned l, int bits, unsigned& inexact) {
    unsigned r = 0u, q = 0u;
    inexact = (l << (2 * bits - 32)) != 0u;
#pragma unroll 1
    for (int i = 0; i < bits; ++i) {
        r = (r << 2) | (h >> 30);
        h = (h << 2) | (l >> 30);
        l <<= 2;
        unsigned t = (q << 2) | 1u;
        q <<= 1;
        if (r >= t) {
            r -= t;
            q |= 1u;
        }
    }
    inexact |= r != 0u;
    return q;
}

// sqrt(x^2 + y^2), correctly rounded: the significands' squares summed exactly in 64 bits (the smaller one's
// low bits only as a sticky bit when the exponents are far apart), then an integer square root of 26 bits
// and whether anything is left below them.
QGPU_MATH_FN float hypotf(float x, float y) {
    unsigned a = __float_as_uint(x) & 0x7fffffffu, b = __float_as_uint(y) & 0x7fffffffu, sa, sb, inexact;
    if (a == 0x7f800000u || b == 0x7f800000u) return __uint_as_float(0x7f800000u);  // even with a NaN
    if (a > 0x7f800000u || b > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (a < b) {
        unsigned t = a;
        a = b;
        b = t;
    }
    if (b == 0u) return __uint_as_float(a);
    int ea = __qgpu_unpack(a, sa), eb = __qgpu_unpack(b, sb), d = ea - eb;
    if (d > 13) return __uint_as_float(a);  // y / x < 2^-12: x^2 + y^2 rounds to x^2 and its root to |x|
    // x^2 + y^2 = s * 2^(2 eb - 46 + drop): ma^2 4^d + mb^2 with the 24-bit significands, in at most 62 bits
    int drop = d > 7 ? 2 * d - 14 : 0;
    unsigned long long ma = sa >> 8, mb = sb >> 8, bb = mb * mb;
    unsigned long long s = ((ma * ma) << (2 * d - drop)) + (bb >> drop);
    unsigned sticky = (bb & ((1ull << drop) - 1u)) != 0u;
    int lead = __clzll((long long)s) & ~1;  // an even shift: the root of s << lead has 32 bits, 26 kept
    s <<= lead;
    unsigned q = __qgpu_isqrt(unsigned(s >> 32), unsigned(s), 26, inexact);
    return __qgpu_round_pack(0u, eb + 8 + drop / 2 - lead / 2, q << 6, inexact | sticky);
}

// ---- arc sines and cosines -------------------------------------------------------------------------

// asin(u) / u in Q2.30 for z = u^2 * 2^32, u in [0, 1/2]: degree 7 in u^2 (a least-squares fit, within 2^-35)
// by Horner's rule.
QGPU_MATH_TABLE int __qgpu_asin_over_coefficients[8] = {0x23b5eda, 0x777861,  0x1947dbb, 0x1ed188d,
                                                        0x2dbbcb3, 0x4ccca45, 0xaaaaab3, 0x40000000};
QGPU_MATH_FN unsigned __qgpu_asin_over(unsigned z) {
    return unsigned(__qgpu_horner(__qgpu_asin_over_coefficients, 8, int(z)));
}

// asin x (cosine 0) or acos x = pi/2 - asin x (cosine 1). Up to |x| = 1/2, asin |x| = |x| A(x^2); above it,
// asin |x| = pi/2 - 2 asin(s) for s = sqrt((1 - |x|) / 2), and 2 asin(s) = sqrt(2) t A(t^2 / 2) with t = sqrt(1 - |x|):
// 1 - |x| is exact in a word, and t its integer square root (29 bits). A result near a constant (pi/2, pi) is
// summed in Q2.30; the others keep their relative accuracy.
QGPU_MATH_FN float __qgpu_asin_acos(float x, unsigned cosine) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, negative = bits >> 31, sig, z, m, hi, lo;
    if (magnitude > 0x3f800000u) return __uint_as_float(0x7fffffffu);  // NaN, |x| > 1
    if (!cosine && magnitude < 0x39800000u) return x;                   // |x| < 2^-12: asin x rounds to x
    int e = __qgpu_unpack(magnitude | unsigned(magnitude == 0u), sig), fraction;  // (0 as the least subnormal)
    unsigned far = magnitude > 0x3f000000u;
    if (far) {  // t * 2^(29 + lead / 2) = m, and t^2 / 2 = z * 2^-32
        unsigned w = magnitude == 0x3f800000u ? 0u : 0u - sig, inexact;  // (1 - |x|) * 2^32
        int lead = __clz(int(w | 1u)) & ~1;
        m = __qgpu_isqrt(w << lead, 0u, 29, inexact);
        z = w >> 1;
        fraction = 59 + lead / 2;
    } else {
        m = sig;
        z = __qgpu_word_at(0u, __qgpu_mulhi_u(sig, sig), -2 * e - 2);  // x^2 * 2^32
        fraction = 61 - e;
    }
    unsigned a = __qgpu_asin_over(z);
    hi = __umulhi(m, a);
    lo = m * a;  // |x| A or t A, times 2^fraction
    if (far) {  // times sqrt(2)
        __qgpu_times_fraction(hi, lo, 0xb504f334u);
        fraction -= 1;
    }
    unsigned constant = cosine ? !far || negative : far;
    if (constant) {  // pi/2 - v, pi/2 + v or pi - v in Q2.30
        unsigned v = __qgpu_word_at(hi, lo, fraction - 30), base = cosine && far ? 0xc90fdaa2u : 0x6487ed51u;
        lo = cosine && !far && negative ? base + v : base - v;
        hi = 0u;
        fraction = 30;
    }
    float r = __qgpu_fixed_to_float(hi, lo, fraction);
    return __uint_as_float(__float_as_uint(r) | (cosine ? 0u : negative << 31));
}
QGPU_MATH_FN float asinf(float x) { return __qgpu_asin_acos(x, 0u); }
QGPU_MATH_FN float acosf(float x) { return __qgpu_asin_acos(x, 1u); }

// ---- inverse hyperbolic sine and cosine -------------------------------------------------------------

// asinh x = log(|x| + sqrt(x^2 + 1)) with x's sign. Below 1/2, x S(x^2) with S = asinh(u) / u of degree 6 in u^2 (a
// least-squares fit, within 2^-34) in Q2.30: no cancellation. Up to 2^12, x^2 + 1 summed exactly in 64 bits, its
// 29-bit integer square root added to |x| in a word, and log2 of the sum. Beyond, log(2 |x|): 1 / (4 x^2) is
// below the rounding.
QGPU_MATH_TABLE int __qgpu_asinh_over_coefficients[7] = {0x94c871,  -0x146375b, 0x1eb626f, -0x2dae48a,
                                                         0x4ccc73e, -0xaaaaa95,  0x40000000};
QGPU_MATH_FN float asinhf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, sig, hi, lo;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (magnitude < 0x39800000u || magnitude == 0x7f800000u) return x;  // |x| < 2^-12 rounds to x; +-inf
    int e = __qgpu_unpack(magnitude, sig), fraction;
    if (magnitude < 0x3f000000u) {
        int z = int(__qgpu_word_at(0u, __qgpu_mulhi_u(sig, sig), -2 * e - 2));  // x^2 * 2^32
        int a = __qgpu_horner(__qgpu_asinh_over_coefficients, 7, z);            // S(x^2) * 2^30
        hi = __umulhi(sig, unsigned(a));
        lo = sig * unsigned(a);
        fraction = 61 - e;
    } else {
        if (e < 12) {  // (x^2 + 1) * 2^(60 - 2e) = rh:rl, with its top bit pair made non-zero
            unsigned sh = __umulhi(sig, sig), rh = (sh >> 2) + (1u << (28 - 2 * e)), rl = (sh << 30) | ((sig * sig) >> 2);
            unsigned inexact;
            int lead = __clz(int(rh)) & ~1;
            unsigned q = __qgpu_isqrt(__qgpu_funnel(rh, rl, lead), rl << lead, 29, inexact);  // root * 2^(27 - e + lead/2)
            sig = (sig >> 2) + (q << (2 - lead / 2));  // |x| + the root, times 2^(29 - e)
            e += 2;
        } else {
            e += 1;
        }
        fraction = __qgpu_log2_1p(sig, e, 0u, 0u, hi, lo);
        __qgpu_times_fraction(hi, lo, 0xb17217f8u);
    }
    float r = __qgpu_fixed_to_float(hi, lo, fraction);
    return __uint_as_float(__float_as_uint(r) | (bits & 0x80000000u));
}

// acosh x = log(x + sqrt(x^2 - 1)) = log1p(d + sqrt(d (d + 2))) for d = x - 1, which is exact in a word, as is
// d (d + 2) in 64 bits; its 29-bit integer square root and d are summed on the root's scale, and log1p's
// polynomial keeps the relative accuracy near x = 1. From 2^12, log(2 x).
QGPU_MATH_FN float acoshf(float x) {
    unsigned bits = __float_as_uint(x), sig, hi, lo, one = 0u;
    if (bits > 0x7f800000u || bits < 0x3f800000u) return __uint_as_float(0x7fffffffu);  // NaN, x < 1
    if (bits == 0x3f800000u) return 0.0f;
    if (bits == 0x7f800000u) return x;
    int e = __qgpu_unpack(bits, sig) + 1;  // log(2 x) from 2^12
    if (e <= 12) {
        e -= 1;
        unsigned d = (sig - (0x80000000u >> e)) >> 1;  // d * 2^(30 - e)
        unsigned rl = d * d, low = d << (31 - e), rh = __umulhi(d, d) + (d >> (1 + e));  // d (d + 2) * 2^(60 - 2e)
        rl += low;
        rh += rl < low;
        int lead = __clz(int(rh != 0u ? rh : rl)) & ~1;  // the root's precision needs the top bit pair
        if (rh == 0u) {
            rh = rl;
            rl = 0u;
            lead += 32;
        }
        unsigned inexact, q = __qgpu_isqrt(__qgpu_funnel(rh, rl, lead & 31), rl << (lead & 31), 29, inexact);
        // The root is q * 2^(e - 27 - lead / 2), in [2^28, 2^29]; on its scale, d (whose 7 low bits are 0) is below
        // 2^29, and their sum u is in [2^28, 2^30).
        sig = ((d >> 3) << (lead / 2)) + q;
        int top = 1 + (sig < 0x40000000u) + (sig < 0x20000000u);
        sig <<= top;
        e += 4 - lead / 2 - top;
        one = 1u;
    }
    int fraction = __qgpu_log2_1p(sig, e, 0u, one, hi, lo);
    return __qgpu_ln_of_log2(hi, lo, fraction);
}

// ---- error function --------------------------------------------------------------------------------

// erf(u) / u at z = u^2 = w + 1/2 for w in [-1/2, 1/2), and erfc(a + 1/2 + w) for a = 1, 2, 3: degree 7 and 9 in w
// (least-squares fits, within 2^-34 and 2^-32) in Q2.30.
QGPU_MATH_TABLE int __qgpu_erf_over_coefficients[8] = {-0x2893,    0x14a9e,   -0x931c1,    0x3904fc,
                                                       -0x12b902c, 0x5150da4, -0x11fd1629, 0x3dca3d64};
QGPU_MATH_TABLE int __qgpu_erfc_coefficients[30] = {
    -0x193cf4, 0x275a6d, 0x4d061c, -0x13cc248, 0xf3a4d6, 0x2dab7a5, -0x8e150f0, 0xb6ad49c, -0x79c8dc7, 0x22b5552,
    0x40543,   -0x504c4, -0x8dd71, 0x2e027f,   -0x643aa8, 0x8d4145, -0x88cec9,  0x593914,  -0x23b063,  0x6aae1,
    -0x4132,   0x9b59,   -0xf3e3,  0x14393,    -0x15871,  0x11c40,  -0xb166,    0x4f42,    -0x16a6,    0x31e};

// erf |x| for 0 < |x| < 4 (its bits `magnitude`) as hi:lo * 2^-fraction (returned): below 1, |x| E(x^2) with |x|'s
// whole significand (a tiny result keeps its relative accuracy); from 1 to 4, 1 - erfc |x| with erfc a polynomial
// on each unit interval (2^-30 against a result above 0.84).
QGPU_MATH_FN int __qgpu_erf_fixed(unsigned magnitude, unsigned& hi, unsigned& lo) {
    unsigned sig;
    int e = __qgpu_unpack(magnitude, sig);
    if (e >= 0) {  // |x| = a + 1/2 + w, a the bits above the point
        unsigned a = sig >> (31 - e), w = (sig << (e + 1)) - 0x80000000u;
        hi = 0u;
        lo = 0x40000000u - unsigned(__qgpu_horner(__qgpu_erfc_coefficients + 10 * (a - 1u), 10, int(w)));
        return 30;
    }
    int w = int(__qgpu_word_at(0u, __qgpu_mulhi_u(sig, sig), -2 * e - 2) - 0x80000000u);  // (x^2 - 1/2) * 2^32
    unsigned q = unsigned(__qgpu_horner(__qgpu_erf_over_coefficients, 8, w));             // E(x^2) * 2^30
    hi = __umulhi(sig, q);
    lo = sig * q;
    return 61 - e;
}

// erf x, with x's sign; 1 from 4 on.
QGPU_MATH_FN float erff(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, hi, lo;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (magnitude >= 0x40800000u) return __uint_as_float((bits & 0x80000000u) | 0x3f800000u);  // |x| >= 4
    if (magnitude == 0u) return x;
    int fraction = __qgpu_erf_fixed(magnitude, hi, lo);
    float r = __qgpu_fixed_to_float(hi, lo, fraction);
    return __uint_as_float(__float_as_uint(r) | (bits & 0x80000000u));
}

// e^(x^2) erfc(x), times 1, 1, 2 and 4, on [0, 1), [1, 2), [2, 4) and [4, 10.1) at u = x - 1/2, x - 3/2,
// (x - 3) / 2 and (x - 8) / 8: degree 13 (least-squares fits, within 2^-41, 2^-47, 2^-40 and 2^-29.7) in Q2.30.
QGPU_MATH_TABLE int __qgpu_erfc_scaled_coefficients[56] = {
    -0xd04a,     0x25475,     -0x5c8c3,    0xf6e29,     -0x27be69,   0x616f9c,    -0xe387e4,  0x1f77400,
    -0x4181652,  0x7f26819,   -0xe356bd3,  0x16ff8615,  -0x20cfe4c8, 0x27677879,  -0x2b0,     0x94f,
    -0x1d2f,     0x5fad,      -0x130c4,    0x3a8ab,     -0xad856,    0x1ee705,    -0x544fb6,  0xdb2ca3,
    -0x21b8a3a,  0x4dfa89c,   -0xa78cc42,  0x1494db00,  -0x10f7f,    0x26229,     -0x464e8,   0x992e1,
    -0x14b492,   0x2b31c3,    -0x5808ed,   0xaf3945,    -0x153dece,  0x281398b,   -0x4964187, 0x821ff0d,
    -0xdeb5727,  0x16e9827d,  -0x4a6f76af, -0x2b53863a, -0xcfdcfe4,  0x1518fb36,  -0x9f38943, 0xc6256fb,
    -0xe169b5c,  0xeb72be2,   -0xf7300cc,  0x10253f9c,  -0x10bfe5c0, 0x114108f5,  -0x11a58815, 0x11ea8c40};

// erfc x = e^(-x^2) times the fitted e^(x^2) erfc(x) for x >= 0, with x^2 log2 e to 2^-32 (x to 27 fraction bits,
// exact from 1/16 up, squared in 64 bits and times log2 e's 64 bits), so that the result keeps its relative
// accuracy down to the subnormals; 0 from 10.1 on. For x < 0, 2 - erfc |x| in Q2.30; 2 from -4 on.
QGPU_MATH_FN float erfcf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, negative = bits >> 31;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (magnitude >= (negative ? 0x40800000u : 0x4121999au)) return negative ? 2.0f : 0.0f;  // -4, 10.1
    int i = magnitude < 0x3f800000u ? 0 : int(magnitude >> 23) - 126;                      // [0, 1) .. [4, 10.1)
    i = i > 3 ? 3 : i;
    unsigned xf = (magnitude | 0x800000u) << 8;  // |x| * 2^27 (0 below 2^-27)
    int shift = 4 - (int(magnitude >> 23) - 127);
    xf = magnitude < 0x00800000u || shift > 31 ? 0u : xf >> shift;
    int u = int((xf << (i == 3 ? 2 : i == 2 ? 4 : 5)) - (i < 3 ? 0x80000000u : 0u));  // u * 2^32
    unsigned r = unsigned(__qgpu_horner(__qgpu_erfc_scaled_coefficients + 14 * i, 14, u));
    unsigned long long square = (unsigned long long)xf * xf, xh = square >> 32, xl = unsigned(square);
    unsigned long long t = ((xh * 0x5c551d94u) >> 20) + ((xh * 0xae0bf85eu + xl * 0x5c551d94u) >> 52);
    unsigned f = unsigned(t);  // x^2 log2 e = t * 2^-32, and e^(-x^2) = p * 2^(k - 31)
    int k = f != 0u ? -int(t >> 32) - 1 : -int(t >> 32);
    unsigned p = f != 0u ? __qgpu_exp2_fraction(0u - f) : 0x80000000u, hi = __umulhi(p, r), lo = p * r;
    int fraction = 61 + (i > 0 ? i - 1 : 0) - k;
    if (negative) {  // 2 - erfc |x|
        lo = 0x80000000u - __qgpu_word_at(hi, lo, fraction - 30);
        hi = 0u;
        fraction = 30;
    }
    return __qgpu_fixed_to_float(hi, lo, fraction);
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

// ---- exact functions: rounding, exponents, fractions, neighbours, remainders ------------------------

// x rounded to an integer, halfway cases away from zero.
QGPU_MATH_FN float roundf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu;
    int e = int(magnitude >> 23) - 127;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (e >= 23) return x;
    if (e < -1) return __uint_as_float(bits & 0x80000000u);
    if (e == -1) return __uint_as_float((bits & 0x80000000u) | 0x3f800000u);
    unsigned fraction = 0x7fffffu >> e;
    return __uint_as_float((bits + (0x400000u >> e)) & ~fraction);
}
// roundf converted as a GPU converts (PTX's cvt): NaN gives 0, and a value past the range the nearest end.
QGPU_MATH_FN long long llroundf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return 0;
    if (magnitude >= 0x5f000000u) return (bits >> 31) ? -9223372036854775807LL - 1 : 9223372036854775807LL;
    return (long long)roundf(x);
}
QGPU_MATH_FN long lroundf(float x) { return (long)llroundf(x); }

// x * 2^n, rounded once.
QGPU_MATH_FN float ldexpf(float x, int n) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, sig;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (magnitude == 0u || magnitude == 0x7f800000u) return x;
    int e = __qgpu_unpack(magnitude, sig);
    n = n > 300 ? 300 : n < -300 ? -300 : n;
    return __qgpu_round_pack(bits >> 31, e + n, sig, 0u);
}
QGPU_MATH_FN float scalbnf(float x, int n) { return ldexpf(x, n); }
QGPU_MATH_FN float scalblnf(float x, long n) { return ldexpf(x, n > 300 ? 300 : n < -300 ? -300 : int(n)); }

// x = f * 2^e with |f| in [1/2, 1): returns f and sets e (0 with x for a zero, an infinity or NaN).
QGPU_MATH_FN float frexpf(float x, int* exponent) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, sig;
    *exponent = 0;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (magnitude == 0u || magnitude == 0x7f800000u) return x;
    *exponent = __qgpu_unpack(magnitude, sig) + 1;
    return __uint_as_float((bits & 0x80000000u) | 0x3f000000u | ((sig << 1) >> 9));
}

// The unbiased exponent of x: INT_MIN for 0 and NaN, INT_MAX for an infinity, as CUDA defines them.
QGPU_MATH_FN int ilogbf(float x) {
    unsigned magnitude = __float_as_uint(x) & 0x7fffffffu, sig;
    if (magnitude == 0u || magnitude > 0x7f800000u) return -2147483647 - 1;
    if (magnitude == 0x7f800000u) return 2147483647;
    return __qgpu_unpack(magnitude, sig);
}
QGPU_MATH_FN float logbf(float x) {
    unsigned magnitude = __float_as_uint(x) & 0x7fffffffu, sig;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (magnitude == 0u) return __uint_as_float(0xff800000u);
    if (magnitude == 0x7f800000u) return __uint_as_float(0x7f800000u);
    int e = __qgpu_unpack(magnitude, sig);
    return __qgpu_fixed_to_float(unsigned(e >> 31), unsigned(e), 0);
}

// x's fraction, with its integer part in *whole; both carry x's sign.
QGPU_MATH_FN float modff(float x, float* whole) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, sign = bits & 0x80000000u;
    int e = int(magnitude >> 23) - 127;
    if (magnitude > 0x7f800000u) {
        *whole = __uint_as_float(0x7fffffffu);
        return *whole;
    }
    if (e >= 23) {  // an integer, or an infinity
        *whole = x;
        return __uint_as_float(sign);
    }
    if (e < 0) {
        *whole = __uint_as_float(sign);
        return x;
    }
    unsigned fraction = 0x7fffffu >> e;
    *whole = __uint_as_float(bits & ~fraction);
    float f = __qgpu_fixed_to_float(0u, magnitude & fraction, 23 - e);
    return __uint_as_float(__float_as_uint(f) | sign);
}

// The float next to x in the direction of y.
QGPU_MATH_FN float nextafterf(float x, float y) {
    unsigned a = __float_as_uint(x), b = __float_as_uint(y);
    if ((a & 0x7fffffffu) > 0x7f800000u || (b & 0x7fffffffu) > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (a == b || ((a | b) & 0x7fffffffu) == 0u) return y;
    if ((a & 0x7fffffffu) == 0u) return __uint_as_float((b & 0x80000000u) | 1u);
    // away from zero when y is further out on x's side, else towards it
    int away = (a >> 31) == (b >> 31) && (b & 0x7fffffffu) > (a & 0x7fffffffu);
    return __uint_as_float(away ? a + 1u : a - 1u);
}

// The positive difference: x - y where x > y, +0 where not, NaN from NaN.
QGPU_MATH_FN float fdimf(float x, float y) {
    if (x != x || y != y) return __uint_as_float(0x7fffffffu);
    return x > y ? x - y : 0.0f;
}

// x - n y with n = x / y truncated (fmodf), exactly: the significands' long division, a bit at a time.
QGPU_MATH_FN float fmodf(float x, float y) {
    unsigned a = __float_as_uint(x) & 0x7fffffffu, b = __float_as_uint(y) & 0x7fffffffu, mx, my;
    if (a >= 0x7f800000u || b > 0x7f800000u || b == 0u) return __uint_as_float(0x7fffffffu);
    if (a < b || a == 0u) return x;  // |x| < |y| (an infinite y included)
    int ex = __qgpu_unpack(a, mx), ey = __qgpu_unpack(b, my);
    unsigned r = mx >> 8, d = my >> 8;  // 24-bit significands: |x| = r * 2^(ex - 23), |y| = d * 2^(ey - 23)
    for (int i = ex - ey; i > 0; --i) {
        r = r >= d ? r - d : r;
        r <<= 1;
    }
    r = r >= d ? r - d : r;
    float f = __qgpu_fixed_to_float(0u, r, 23 - ey);
    return __uint_as_float(__float_as_uint(f) | (__float_as_uint(x) & 0x80000000u));
}

// x - n y with n = x / y rounded to the nearest integer, ties to even (remainderf); *quo gets n's three low
// bits with the sign of x / y (remquof). The significands' long division, then the last step rounds.
QGPU_MATH_FN float remquof(float x, float y, int* quo) {
    unsigned bx = __float_as_uint(x), by = __float_as_uint(y), a = bx & 0x7fffffffu, b = by & 0x7fffffffu, mx, my;
    *quo = 0;
    if (a >= 0x7f800000u || b > 0x7f800000u || b == 0u) return __uint_as_float(0x7fffffffu);
    if (b == 0x7f800000u || a == 0u) return x;
    int ex = __qgpu_unpack(a, mx), ey = __qgpu_unpack(b, my);
    if (ex < ey - 1) return x;  // |x| < |y| / 2: n = 0
    unsigned r = mx >> 8, d = my >> 8, q = 0u;  // |x| = r * 2^(ex - 23), |y| = d * 2^(scale - 23)
    int scale = ey;
    if (ex < ey) {  // |y| / 2 <= |x| < |y|: |y| on |x|'s scale
        d <<= 1;
        scale = ex;
    }
#pragma unroll 1
    for (int i = ex - scale; i > 0; --i) {
        q = (q << 1) | unsigned(r >= d);
        r = r >= d ? r - d : r;
        r <<= 1;
    }
    q = (q << 1) | unsigned(r >= d);
    r = r >= d ? r - d : r;
    unsigned up = 2u * r > d || (2u * r == d && (q & 1u));  // round n up: the remainder changes sign
    r = up ? d - r : r;
    q += up;
    *quo = (bx ^ by) >> 31 ? -int(q & 7u) : int(q & 7u);
    float f = __qgpu_fixed_to_float(0u, r, 23 - scale);
    return __uint_as_float(__float_as_uint(f) | ((bx & 0x80000000u) ^ (up << 31)));
}
QGPU_MATH_FN float remainderf(float x, float y) {
    int quo;
    return remquof(x, y, &quo);
}
