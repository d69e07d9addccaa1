// qgpu's float math library, continued (qgpu_math.h has its helpers and how it is written): the exact functions
// (rounding, exponents, fractions, neighbours, remainders). The includer defines QGPU_MATH_FN and QGPU_MATH_TABLE
// and includes qgpu_math.h first.

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
