// qgpu's float math library, continued (qgpu_math.h has its helpers and how it is written): the hyperbolic
// functions, their inverses and the error functions. The includer defines QGPU_MATH_FN and QGPU_MATH_TABLE and
// includes qgpu_math.h and qgpu_math_trig.h (the integer square root) first.

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

// (1 / sqrt(pi)) A(w) / x with w = 1 / x^2 <= 1/102 and u = 32 w: A is the asymptotic series of x sqrt(pi)
// e^(x^2) erfc(x) to w^6 (the next term is below 2^-36), in Q2.30.
QGPU_MATH_TABLE int __qgpu_erfcx_asymptotic_coefficients[7] = {0xa2,    -0x3b1,     0x1a40,    -0xf000,
                                                               0xc0000, -0x1000000, 0x40000000};

// The scaled complementary error function e^(x^2) erfc(x): erfcf's fit below 10.1 (i: its interval), the
// asymptotic series above it (i = 4; 1 / x by a Newton reciprocal), and 2 e^(x^2) - erfcx(|x|) for x < 0
// (infinity from -9.3825 on). One polynomial and one rounding on every path (ROM).
QGPU_MATH_FN float erfcxf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, negative = bits >> 31, lo, y;
    if (magnitude > 0x7f800000u) return __uint_as_float(0x7fffffffu);
    if (negative && magnitude >= 0x41200000u) return __uint_as_float(0x7f800000u);  // x <= -10
    if (bits == 0x7f800000u) return 0.0f;
    int i = magnitude < 0x3f800000u ? 0 : int(magnitude >> 23) - 126;  // [0, 1) .. [4, 10.1), then the series
    i = magnitude >= 0x4121999au ? 4 : i > 3 ? 3 : i;
    int e = int(magnitude >> 23) - 127, u;  // x = n 2^(e + 1) with n = sig / 2^32 where x >= 10.1
    unsigned xf = (magnitude | 0x800000u) << 8, sig = xf | 0x80000000u;
    xf = i == 4 || magnitude < 0x00800000u || 4 - e > 31 ? 0u : xf >> (4 - e);  // |x| * 2^27 below 10.1
    if (i < 4) {
        u = int((xf << (i == 3 ? 2 : i == 2 ? 4 : 5)) - (i < 3 ? 0x80000000u : 0u));
    } else {  // 1 / n = y / 2^31, and w = 2^(2e+32) / x^2
        y = sig == 0x80000000u ? 0xffffffffu : __qgpu_reciprocal(sig);
        unsigned w = __umulhi(y, y);
        u = int(2 * e - 5 >= 32 ? 0u : w >> (2 * e - 5));  // 32 / x^2 * 2^32
    }
    unsigned r = unsigned(i < 4 ? __qgpu_horner(__qgpu_erfc_scaled_coefficients + 14 * i, 14, u)
                                : __qgpu_horner(__qgpu_erfcx_asymptotic_coefficients, 7, u));
    int fraction = 30 + (i > 0 ? i - 1 : 0);
    lo = r;
    if (i == 4) {
        lo = __umulhi(__umulhi(y, 0x906eba82u), r << 1);  // A(w) / (n sqrt(pi)) * 2^30
        fraction = e + 31;
    } else if (negative) {  // 2 e^(x^2) = p 2^(k - 30) (p in Q1.31), less r on p's scale (r is below p / 2)
        unsigned long long square = (unsigned long long)xf * xf, xh = square >> 32, xl = unsigned(square);
        unsigned long long t = ((xh * 0x5c551d94u) >> 20) + ((xh * 0xae0bf85eu + xl * 0x5c551d94u) >> 52);
        int k = int(t >> 32), shift = k + fraction - 30;
        lo = __qgpu_exp2_fraction(unsigned(t)) - (shift < 32 ? r >> shift : 0u);
        fraction = 30 - k;
    }
    return __qgpu_fixed_to_float(0u, lo, fraction);
}

// ---- inverse error functions -----------------------------------------------------------------------

// erfinv(t) / t at z = t^2 on [0, 1/4) and [1/4, 9/16), at u = 2 (z - 1/8) and 2 (z - 13/32): degree 9 (least-squares
// fits, within 2^-29 with the truncated products), in Q1.31, the last term unsigned.
QGPU_MATH_TABLE int __qgpu_erfinv_small_coefficients[20] = {
    0x63204,  0xc33f1,   0x179821,  0x308ee9,  0x66cd81,  0xe24cd4,  0x2110efb, 0x55a80d1, 0x112fc010, 0x756da32c,
    0xde9cc3, 0x124a5dd, 0x158e46d, 0x1e43178, 0x2be44ab, 0x41d7369, 0x692836e, 0xbb10aa8, 0x1a186dbe, -0x7eb9233c};

// erfinv(1 - q) at s = sqrt(-log2 q) on [sqrt(2), 2), [2, 3), [3, 4), [4, 6), [6, 8) and [8, sqrt(150)]: degree 9
// at u = (s - c) 2^(shift - 4) (within 2^-29), at 2^(shift + 27), the last term unsigned. The centres c in Q4.28
// with the shift in their low byte.
QGPU_MATH_TABLE int __qgpu_erfinv_tail_coefficients[60] = {
    0x20f0c,   0x2f35e,  -0x1572a9, 0x4700f6,  -0xb6fd1c,  0x18703c8, -0x29ee52c, 0x2c41737,  0x6e5f36d5, -0x769da39d,
    -0x575b89, 0x9e747a, -0xf491cf, 0x1633f24, -0x1d007c5, 0x209b1aa, -0x1ab480b, -0x1e147c,  0x6fd96471, 0x703b25c2,
    -0x711a8,  0xd1e11,  -0x163cda, 0x246897,  -0x34a23d,  0x399391,  -0x5586f,   -0xf73c91,  0x6f1dc72d, -0x57fee028,
    -0x3f1773, 0x450e72, -0x3f7ea3, 0x390514,  -0x20c0f3,  -0x187dd1, 0x8c9d23,   -0x16ffbbd, 0x6dd1255f, 0x7d6a2261,
    -0x159a4,  0x1a6e6,  -0x148ae,  -0xa3ce,   0x75383,    -0x1a5bf1, 0x4c7ea5,   -0xce0d81,  0x6cba707c, -0x4bf9b450,
    -0x701c,   -0x38c38, 0xac8fa,   -0x15e641, 0x27c99c,   -0x44a11c, 0x739df1,   -0xc2c2ea,  0x6be3f8ea, -0x7d6426d0};
QGPU_MATH_TABLE unsigned __qgpu_erfinv_tail_centres[6] = {0x1b800004u, 0x28000003u, 0x38000003u,
                                                          0x50000002u, 0x70000002u, 0xa0000001u};

// A polynomial of the tables above whose last sum needs the 32nd bit: Horner's rule to its last step in int,
// the last sum unsigned.
QGPU_MATH_FN unsigned __qgpu_horner_top(const int* c, int n, int v) {
    return unsigned(c[n - 1]) + unsigned(__qgpu_mulhi_s(__qgpu_horner(c, n - 1, v), v));
}

// erfinv of t = m 2^(e - 31) (m not 0), or with `tail` erfinv(1 - q) of q = m 2^(e - 31) <= 1/4, with the sign:
// below 3/4, t times the fit at t^2 (t's whole significand: a tiny result keeps its relative accuracy); in the
// tail, the fit at s = sqrt(-log2 q), with log2 q to 2^-32 and s to 29 bits. One polynomial and one rounding
// on both paths (ROM).
QGPU_MATH_FN float __qgpu_erfinv(unsigned m, int e, unsigned tail, unsigned sign) {
    int lead = __clz(int(m)), v, fraction;
    unsigned sig = m << lead, hi, lo, inexact;
    e -= lead;
    const int* c;
    if (!tail) {
        unsigned z = __qgpu_word_at(0u, __qgpu_mulhi_u(sig, sig), -2 * e - 2), upper = z >= 0x40000000u;  // t^2 2^32
        v = int((z - (upper ? 0x68000000u : 0x20000000u)) << 1);
        c = __qgpu_erfinv_small_coefficients + 10 * upper;
        sig >>= 1;
        fraction = 61 - e;
    } else {
        v = __qgpu_log2_argument(sig, e);
        __qgpu_log2_sum(e, v, __qgpu_log2_over(v), hi, lo);                        // log2 q = hi:lo * 2^-54
        unsigned long long l = (0ull - ((unsigned long long)hi << 32 | lo)) << 2;  // -log2 q * 2^56: [2^57, 2^64)
        hi = unsigned(l >> 32);
        int j = hi >= 0x40000000u ? 0 : hi >= 0x10000000u ? 1 : hi >= 0x04000000u ? 2 : 3;  // top bit pair not 0
        l <<= 2 * j;
        unsigned s = __qgpu_isqrt(unsigned(l >> 32), unsigned(l), 29, inexact) << (3 - j);  // s in Q4.28
        int whole = int(s >> 28), i = whole < 4 ? whole - 1 : whole < 8 ? 3 + (whole - 4) / 2 : 5;
        unsigned centre = __qgpu_erfinv_tail_centres[i];
        v = int((s - (centre & ~0xffu)) << (centre & 0xffu));
        c = __qgpu_erfinv_tail_coefficients + 10 * i;
        sig = 0x80000000u;
        fraction = int(centre & 0xffu) + 58;
    }
    unsigned f = __qgpu_horner_top(c, 10, v);
    float r = __qgpu_fixed_to_float(__umulhi(sig, f), sig * f, fraction);
    return __uint_as_float(__float_as_uint(r) | sign);
}

// The inverse error function: the fit at t^2 below 3/4 and at sqrt(-log2(1 - t)) above (1 - t exact).
QGPU_MATH_FN float erfinvf(float x) {
    unsigned bits = __float_as_uint(x), magnitude = bits & 0x7fffffffu, field = magnitude >> 23;
    if (magnitude > 0x3f800000u) return __uint_as_float(0x7fffffffu);  // NaN, |x| > 1
    if (magnitude == 0x3f800000u) return __uint_as_float((bits & 0x80000000u) | 0x7f800000u);
    if (magnitude == 0u) return x;
    unsigned m = (magnitude & 0x7fffffu) | (field != 0u ? 0x800000u : 0u), tail = magnitude >= 0x3f400000u;
    // |x| = m 2^(e - 31); from 3/4 on, 1 - |x| = (2^24 - m) 2^-24
    return __qgpu_erfinv(tail ? 0x1000000u - m : m, tail ? 7 : int(field != 0u ? field : 1u) - 119, tail,
                         bits & 0x80000000u);
}

// The inverse complementary error function, erfinv(1 - y): y itself, or 2 - y with the sign, where that is at most
// 1/4; elsewhere |1 - y|, exact in Q1.31. One call of the core (ROM).
QGPU_MATH_FN float erfcinvf(float y) {
    unsigned bits = __float_as_uint(y), field = bits >> 23;
    if ((bits & 0x7fffffffu) == 0u) return __uint_as_float(0x7f800000u);
    if (bits >= 0x40000000u) return __uint_as_float(bits == 0x40000000u ? 0xff800000u : 0x7fffffffu);  // 2, NaN, <0
    if (bits == 0x3f800000u) return 0.0f;
    unsigned m = (bits & 0x7fffffu) | (field != 0u ? 0x800000u : 0u), tail = 1u, sign = bits > 0x3f800000u;
    int e = int(field != 0u ? field : 1u) - 119;  // y = m 2^(e - 31)
    if (bits >= 0x3fe00000u) {                    // 2 - y = (2^24 - m) 2^-23
        m = 0x1000000u - m;
        e = 8;
    } else if (bits > 0x3e800000u) {  // |1 - y| 2^31
        unsigned whole = m << (int(field) - 119);
        m = sign ? whole - 0x80000000u : 0x80000000u - whole;
        e = 0;
        tail = 0u;
    }
    return __qgpu_erfinv(m, e, tail, sign << 31);
}
