// qgpu's float math library, continued (qgpu_math.h has its helpers and how it is written): sine, cosine and
// tangent, the arc tangents, the hypotenuse, and the arc sines and cosines. The includer defines QGPU_MATH_FN and
// QGPU_MATH_TABLE and includes qgpu_math.h first.

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
