"""The float math library's accuracy against mpmath: for each function, over about 100,000 inputs (the
function's whole range: random bits, the range where results are finite and not zero, arguments near 0,
near the overflow and underflow thresholds, subnormals, exact cases and the IEEE specials), the largest
error in units in the last place of the exact result, and how many results are correctly rounded. Fails
when a function's error passes 1 ulp (CUDA documents 1 for logf and log2f, 2 or more for the others; 0.5 for
__frsqrt_rn, which CUDA rounds correctly) or a special
case differs from IEEE-754's answer. Prints the table docs/qgpu-cuda.md quotes.

Usage: math_ulp.py --driver qgpu_conformance_math [--count N] [FUNCTION ...]
"""
import argparse
import functools
import multiprocessing
import os
import subprocess
import sys

import mpmath
import numpy as np

mpmath.mp.prec = 96
BOUND_ULP = 1.0

# name: (exact function, range of arguments with finite non-zero results)
FUNCTIONS = {
    "expf": (mpmath.exp, (-103.98, 88.73)),
    "exp2f": (lambda x: mpmath.power(2, x), (-150.0, 128.0)),
    "exp10f": (lambda x: mpmath.power(10, x), (-45.16, 38.54)),
    "logf": (mpmath.log, (1e-38, 3e38)),
    "log2f": (lambda x: mpmath.log(x, 2), (1e-38, 3e38)),
    "log10f": (lambda x: mpmath.log(x, 10), (1e-38, 3e38)),
    "rsqrtf": (lambda x: 1 / mpmath.sqrt(x), (1e-38, 3e38)),
    "sinf": (mpmath.sin, (-1e5, 1e5)),
    "cosf": (mpmath.cos, (-1e5, 1e5)),
    "sinpif": (mpmath.sinpi, (-1e3, 1e3)),
    "cospif": (mpmath.cospi, (-1e3, 1e3)),
    "tanhf": (mpmath.tanh, (-10.0, 10.0)),
    "cbrtf": (lambda x: mpmath.sign(x) * mpmath.cbrt(abs(x)), (-3e38, 3e38)),  # the real root
    "rcbrtf": (lambda x: mpmath.sign(x) / mpmath.cbrt(abs(x)), (-3e38, 3e38)),
    "atanf": (mpmath.atan, (-100.0, 100.0)),
    "expm1f": (mpmath.expm1, (-17.5, 88.72)),
    "log1pf": (mpmath.log1p, (-0.999, 3e38)),
    "sinhf": (mpmath.sinh, (-89.41, 89.41)),
    "coshf": (mpmath.cosh, (-89.41, 89.41)),
    "asinf": (mpmath.asin, (-1.0, 1.0)),
    "acosf": (mpmath.acos, (-1.0, 1.0)),
    "atanhf": (mpmath.atanh, (-1.0, 1.0)),
    "asinhf": (mpmath.asinh, (-3e38, 3e38)),
    "acoshf": (mpmath.acosh, (1.0, 3e38)),
    "tanf": (mpmath.tan, (-1e5, 1e5)),
    "erff": (mpmath.erf, (-4.5, 4.5)),
    "erfcf": (mpmath.erfc, (-4.5, 10.06)),
    "erfcxf": (lambda x: mpmath.exp(x * x) * mpmath.erfc(x), (-9.38, 1e4)),
    "erfinvf": (mpmath.erfinv, (-1.0, 1.0)),
    "erfcinvf": (lambda y: erfcinv(y), (0.0, 2.0)),
    "__frsqrt_rn": (lambda x: 1 / mpmath.sqrt(x), (1e-38, 3e38)),
}
CORRECTLY_ROUNDED = ("__frsqrt_rn",)  # bound 0.5 ulp
LOGS = ("logf", "log2f", "log10f")
RSQRT = ("rsqrtf", "__frsqrt_rn")
TRIG = ("sinf", "cosf", "tanf")
PI_TRIG = ("sinpif", "cospif")
SPECIALS = [0x00000000, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0xFFC00001, 0x00000001, 0x80000001,
            0x007FFFFF, 0x00800000, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF]


def erfcinv(y):
    """The t with erfc(t) = y: erfinv(1 - y), or where y is tiny (1 - y would round to 1) Newton's iteration on
    log erfc(t) = log y from sqrt(-log y)."""
    if y >= mpmath.mpf(2) ** -40:
        return mpmath.erfinv(1 - y)
    t, target = mpmath.sqrt(-mpmath.log(y)), mpmath.log(y)
    for _ in range(10):
        c = mpmath.erfc(t)
        step = (mpmath.log(c) - target) * c / (2 / mpmath.sqrt(mpmath.pi) * mpmath.exp(-t * t))
        t += step
        if abs(step) < t * mpmath.mpf(2) ** -90:
            break
    return t


def inputs(name, count, rng):
    low, high = FUNCTIONS[name][1]
    n = count // 5
    parts = [np.array(SPECIALS, dtype=np.uint32), rng.integers(0, 2**32, n, dtype=np.uint32)]
    if name in TRIG:  # every exponent, and the floats nearest to multiples of pi/2 (the hard cases)
        parts.append(rng.integers(0, 0x7F800000, 2 * n, dtype=np.uint32) | (rng.integers(0, 2, 2 * n, dtype=np.uint32) << 31))
        parts.append(rng.uniform(low, high, n).astype(np.float32).view(np.uint32))
        near = np.array([float(mpmath.pi / 2 * k) for k in rng.integers(1, 2**24, n)], dtype=np.float32)
        parts.append(near.view(np.uint32))
    elif name in PI_TRIG:  # every exponent, integers, halves and quarters
        parts.append(rng.integers(0, 0x7F800000, 2 * n, dtype=np.uint32) | (rng.integers(0, 2, 2 * n, dtype=np.uint32) << 31))
        parts.append(rng.uniform(low, high, n).astype(np.float32).view(np.uint32))
        parts.append((rng.integers(-4000, 4000, n) / 4).astype(np.float32).view(np.uint32))
    elif name in ("cbrtf", "rcbrtf"):  # every exponent, both signs, exact cubes
        parts.append(rng.integers(1, 0x7F800000, 2 * n, dtype=np.uint32) | (rng.integers(0, 2, 2 * n, dtype=np.uint32) << 31))
        parts.append((rng.integers(-400, 400, n).astype(np.float64) ** 3).astype(np.float32).view(np.uint32))
    elif name in RSQRT or name in LOGS:  # every exponent, subnormals, powers of two, x near 1
        parts.append(rng.integers(1, 0x7F800000, 2 * n, dtype=np.uint32))
        parts.append(rng.integers(0x3F3504F3, 0x3FB504F3, n, dtype=np.uint32))
        parts.append(np.arange(1, 254, dtype=np.uint32) << 23)
    elif name in ("asinf", "acosf", "atanhf", "erfinvf"):  # x in [-1, 1], every exponent below 1, x near +-1 and +-1/2
        parts.append(rng.uniform(-1, 1, 2 * n).astype(np.float32).view(np.uint32))
        parts.append(rng.integers(1, 0x3F800000, n, dtype=np.uint32) | (rng.integers(0, 2, n, dtype=np.uint32) << 31))
        near = 1 - rng.integers(1, 2**16, n // 2) * np.float32(2**-24)
        half = 0.5 + rng.integers(-2**12, 2**12, n // 2) * np.float32(2**-25)
        parts.append((np.concatenate([near, half]) * rng.choice([-1, 1], n)).astype(np.float32).view(np.uint32))
    elif name in ("asinhf", "acoshf"):  # every exponent of both signs, x near 1, x in [-20, 20]
        parts.append(rng.integers(1, 0x7F800000, 2 * n, dtype=np.uint32) | (rng.integers(0, 2, 2 * n, dtype=np.uint32) << 31))
        parts.append((1 + rng.integers(0, 2**20, n // 2) * np.float32(2**-23)).astype(np.float32).view(np.uint32))
        parts.append(rng.uniform(-20, 20, n).astype(np.float32).view(np.uint32))
        tiny = rng.integers(0x2D000000, 0x3F000000, n // 2, dtype=np.uint32)
        parts.append(tiny | (rng.integers(0, 2, n // 2, dtype=np.uint32) << 31))
    elif name == "erfcinvf":  # y in (0, 2), every exponent below 2, y near 1 and near 2
        parts.append(rng.uniform(0, 2, 2 * n).astype(np.float32).view(np.uint32))
        parts.append(rng.integers(1, 0x40000000, n, dtype=np.uint32))
        near = rng.integers(1, 2**16, n // 2) * np.float32(2**-24)
        parts.append(np.concatenate([1 - near, 1 + near, 2 - near]).astype(np.float32).view(np.uint32))
    elif name == "erfcxf":  # x in [-9.4, 12], every exponent of both signs, x near 10.1 (where the series starts)
        parts.append(rng.uniform(-9.4, 12, 2 * n).astype(np.float32).view(np.uint32))
        parts.append(rng.integers(1, 0x7F800000, n, dtype=np.uint32) | (rng.integers(0, 2, n, dtype=np.uint32) << 31))
        parts.append(rng.uniform(10.0, 10.2, n // 2).astype(np.float32).view(np.uint32))
        parts.append(rng.uniform(-0.01, 0.01, n // 2).astype(np.float32).view(np.uint32))
    elif name == "log1pf":  # every exponent of a positive x, x in (-1, 1), x near -1
        parts.append(rng.integers(1, 0x7F800000, n, dtype=np.uint32))
        parts.append(rng.uniform(-1, 1, n).astype(np.float32).view(np.uint32))
        parts.append((rng.integers(1, 2**20, n // 2) * np.float32(2**-24) - 1).astype(np.float32).view(np.uint32))
        tiny = rng.integers(0x2D000000, 0x3F000000, n // 2, dtype=np.uint32)
        parts.append(tiny | (rng.integers(0, 2, n // 2, dtype=np.uint32) << 31))
    else:
        parts.append(rng.uniform(low, high, 2 * n).astype(np.float32).view(np.uint32))
        tiny = rng.integers(0x2D000000, 0x3F000000, n // 2, dtype=np.uint32)  # |x| from 2^-37 to 0.5
        parts.append(tiny | (rng.integers(0, 2, n // 2, dtype=np.uint32) << 31))
        edges = np.concatenate([rng.uniform(e - 1e-3 * abs(e), e + 1e-3 * abs(e), n // 4) for e in (low, high)])
        parts.append(edges.astype(np.float32).view(np.uint32))
        parts.append(np.arange(-150, 129, dtype=np.float32).view(np.uint32))  # integers: exact for exp2f
    return np.concatenate(parts)


OVERFLOW = mpmath.mpf(2) ** 128 - mpmath.mpf(2) ** 103  # from here up, a float32 result rounds to infinity


def ulp_error(y, exact):
    """y's error in ulps of the exact result (a float32's ulp at its binade, 2^-149 below 2^-126)."""
    if mpmath.isinf(exact):
        return 0.0 if y == float(exact) else float("inf")
    if abs(exact) >= OVERFLOW:
        return 0.0 if np.isinf(y) and (y > 0) == (exact > 0) else float("inf")
    if np.isinf(y) or np.isnan(y):
        return float("inf")
    e = -126 if exact == 0 else max(mpmath.frexp(exact)[1] - 1, -126)  # the binade: 2^e <= |exact| < 2^(e+1)
    return float(mpmath.ldexp(abs(mpmath.mpf(float(y)) - exact), 23 - e))


def special(name, x):
    """IEEE-754's answer where the function is not a smooth value: None elsewhere."""
    if np.isnan(x):
        return np.float32("nan")
    if name in TRIG:
        if np.isinf(x):
            return np.float32("nan")
        if x == 0:
            return np.float32(1) if name == "cosf" else x
    elif name in PI_TRIG:
        if np.isinf(x):
            return np.float32("nan")
        if x == np.floor(x) or 2 * x == np.floor(2 * x):  # sinPi and cosPi at integers and halves: exact
            exact = mpmath.sinpi(float(x)) if name == "sinpif" else mpmath.cospi(float(x))
            if exact == 0:
                return np.float32(0.0) if name == "cospif" else np.copysign(np.float32(0), x)
            return np.float32(float(exact))
    elif name in RSQRT or name in LOGS:
        if x == 0:
            return np.float32(-np.inf if name in LOGS else np.copysign(np.inf, x))
        if x < 0:
            return np.float32("nan")
        if np.isinf(x):
            return np.float32(np.inf if name in LOGS else 0)
        if name in LOGS and x == 1:
            return np.float32(0)
    elif name == "erff":
        if x == 0 or np.isinf(x):
            return x if x == 0 else np.float32(np.copysign(1, x))
    elif name == "erfcf":
        if np.isinf(x):
            return np.float32(2 if x < 0 else 0)
    elif name == "erfcxf":
        if np.isinf(x):
            return np.float32(np.inf if x < 0 else 0)
    elif name == "erfinvf":
        if abs(x) >= 1 or x == 0:
            return x if x == 0 else np.float32(np.copysign(np.inf, x) if abs(x) == 1 else "nan")
    elif name == "erfcinvf":
        if x <= 0 or x >= 2 or x == 1:
            return np.float32(0 if x == 1 else np.inf if x == 0 else -np.inf if x == 2 else "nan")
    elif name == "atanhf":
        if abs(x) >= 1:
            return np.float32(np.copysign(np.inf, x) if abs(x) == 1 else "nan")
        if x == 0:
            return x
    elif name in ("asinhf", "acoshf"):
        if name == "acoshf" and x <= 1:
            return np.float32(0 if x == 1 else "nan")
        if x == 0 or np.isinf(x):
            return x
    elif name in ("asinf", "acosf"):
        if abs(x) > 1 or np.isinf(x):
            return np.float32("nan")
        if x == 0:
            return x if name == "asinf" else np.float32(np.pi / 2)
    elif name in ("expm1f", "log1pf", "sinhf", "coshf"):
        if x == 0:
            return np.float32(1) if name == "coshf" else x
        if name == "log1pf" and x <= -1:
            return np.float32(-np.inf if x == -1 else "nan")
        if np.isinf(x):
            return np.float32(-1 if name == "expm1f" and x < 0 else np.inf if name == "coshf" else x)
    elif name in ("cbrtf", "rcbrtf"):
        if x == 0 or np.isinf(x):
            return x if name == "cbrtf" else np.float32(np.copysign(0 if np.isinf(x) else np.inf, x))
    elif name in ("tanhf", "atanf"):
        if np.isinf(x):
            return np.float32(np.copysign(1 if name == "tanhf" else np.pi / 2, x))
        if x == 0:
            return x
    elif np.isinf(x):
        return np.float32(np.inf if x > 0 else 0)
    return None


def atan2_inputs(count, rng):
    """(y, x) pairs: every pair of specials, random bits, ordinary values, nearly equal and very unequal
    magnitudes."""
    n = count // 3
    specials = np.array([(a, b) for a in SPECIALS for b in SPECIALS], dtype=np.uint32)
    bits = rng.integers(0, 2**32, (n, 2), dtype=np.uint32)
    values = rng.uniform(-100, 100, (n, 2)).astype(np.float32).view(np.uint32)
    near = rng.uniform(-100, 100, n // 2).astype(np.float32)
    equal = np.stack([near, near * rng.choice([-1, 1], n // 2) * rng.uniform(0.999, 1.001, n // 2)], axis=1)
    tiny = rng.integers(0x00000001, 0x7F800000, (n // 2, 2), dtype=np.uint32)
    tiny[:, 0] &= 0x3FFFFFFF  # |y| small against |x|, then the other way round
    tiny[n // 4:] = tiny[n // 4:, ::-1]
    signs = rng.integers(0, 2, tiny.shape, dtype=np.uint32) << 31
    return np.concatenate([specials, bits, values, equal.astype(np.float32).view(np.uint32), tiny | signs])


def atan2_special(y, x):
    """C99's atan2 where an argument is 0, infinite or NaN (NumPy's, in double, rounded): None elsewhere."""
    if np.isnan(x) or np.isnan(y):
        return np.float32("nan")
    if x == 0 or y == 0 or np.isinf(x) or np.isinf(y):
        return np.float32(np.arctan2(np.float64(y), np.float64(x)))
    return None


def hypot_inputs(count, rng):
    """(x, y) pairs: every pair of specials, random bits, ordinary values, magnitudes 2^0 to 2^-30 apart, and
    both near the overflow and the underflow threshold."""
    n = count // 4
    specials = np.array([(a, b) for a in SPECIALS for b in SPECIALS], dtype=np.uint32)
    bits = rng.integers(0, 2**32, (n, 2), dtype=np.uint32)
    values = rng.uniform(-100, 100, (n, 2)).astype(np.float32)
    apart = rng.uniform(1, 2, (n, 2)) * np.stack([np.ones(n), 2.0 ** -rng.integers(0, 31, n)], axis=1)
    edges = np.concatenate([rng.uniform(1e38, 3.4e38, (n // 2, 2)), rng.uniform(1e-45, 1e-37, (n // 2, 2))])
    floats = np.concatenate([values, apart.astype(np.float32), edges.astype(np.float32)])
    return np.concatenate([specials, bits, floats.view(np.uint32)])


def hypot_special(x, y):
    """C99's hypot with an infinite or NaN argument (an infinity wins over a NaN): None elsewhere."""
    if np.isinf(x) or np.isinf(y):
        return np.float32(np.inf)
    if np.isnan(x) or np.isnan(y):
        return np.float32("nan")
    return None


def pow_inputs(count, rng):
    """(x, y) pairs: every pair of specials, random bits, ordinary powers, x near 1 with large |y|, negative x with
    integer y, and results near the overflow and underflow thresholds."""
    n = count // 5
    specials = np.array([(a, b) for a in SPECIALS for b in SPECIALS], dtype=np.uint32)
    bits = rng.integers(0, 2**32, (n, 2), dtype=np.uint32)
    ordinary = np.stack([rng.uniform(0, 10, n), rng.uniform(-30, 30, n)], axis=1)
    near = np.stack([1 + rng.uniform(-2**-8, 2**-8, n), rng.uniform(-3e4, 3e4, n)], axis=1)
    whole = np.stack([-rng.uniform(0, 4, n), rng.integers(-60, 60, n)], axis=1)
    base = rng.uniform(1.01, 100, n)
    edges = np.stack([base, rng.choice([-1, 1], n) * (np.log(2.0) * rng.uniform(125, 152, n)) / np.log(base)], axis=1)
    floats = np.concatenate([ordinary, near, whole, edges]).astype(np.float32)
    return np.concatenate([specials, bits, floats.view(np.uint32)])


def pow_exact(x, y):
    """x^y for a positive x, or a negative x and an integer y."""
    return mpmath.power(x, y) if x > 0 else (-1) ** int(y) * mpmath.power(-x, y)


def pow_special(x, y):
    """C99's pow where x or y is 0, infinite or NaN, x is 1 or x < 0 with y not an integer (NumPy's, in double,
    which follows C): None elsewhere."""
    if y == 0 or x == 1 or np.isnan(x) or np.isnan(y) or x == 0 or np.isinf(x) or np.isinf(y) or (x < 0 and y != np.floor(y)):
        with np.errstate(all="ignore"):
            return np.float32(np.power(np.float64(x), np.float64(y)))
    return None


# Functions of two floats (the driver reads two per result): name -> (the exact function, its arguments, its
# special cases).
PAIRS = {
    "atan2f": (mpmath.atan2, atan2_inputs, atan2_special),
    "hypotf": (mpmath.hypot, hypot_inputs, hypot_special),
    "powf": (pow_exact, pow_inputs, pow_special),
}


def measure(name, driver, args):
    """Runs the driver over the rows of `args` (float bits, one column per argument) and measures each result:
    the largest error in ulps and where, how many results are correctly rounded, and the special cases that
    differ from IEEE-754's answer."""
    if name in PAIRS:
        exact, _, special_case = PAIRS[name]
    else:
        exact, special_case = FUNCTIONS[name][0], functools.partial(special, name)
    out = subprocess.run([driver, name], input=args.tobytes(), capture_output=True, check=True).stdout
    results = np.frombuffer(out, dtype=np.uint32).view(np.float32)
    worst, worst_at, rounded, bad = 0.0, None, 0, []
    for row, r in zip(args.reshape(len(results), -1), results):
        xs = tuple(np.uint32(v).view(np.float32) for v in row)
        expected = special_case(*xs)
        if expected is not None:
            same = (np.isnan(expected) and np.isnan(r)) or (expected == r and np.signbit(expected) == np.signbit(r))
            rounded += same
            if not same:
                bad.append(f"{name}({', '.join(map(repr, xs))}) = {r!r}, not {expected!r}")
            continue
        err = ulp_error(r, exact(*(mpmath.mpf(float(x)) for x in xs)))
        rounded += err <= 0.5
        if err > worst:
            worst, worst_at = err, xs if len(xs) > 1 else xs[0]
    return len(results), worst, worst_at, rounded, bad


def arguments(name, count, rng):
    """The float bits `name` is measured on: one column per argument."""
    return PAIRS[name][1](count, rng) if name in PAIRS else inputs(name, count, rng)


def measure_job(job):
    return measure(*job)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--driver", required=True)
    parser.add_argument("--count", type=int, default=125000)  # about 100,000 arguments per function
    parser.add_argument("functions", nargs="*", help="the functions to measure (default: all)")
    args = parser.parse_args()
    rng = np.random.default_rng(20261206)
    names = args.functions or [*FUNCTIONS, *PAIRS]
    jobs = [(name, args.driver, arguments(name, args.count, rng)) for name in names]  # in order: one rng
    failed = False
    print(f"{'function':10} {'inputs':>8} {'max ulp':>8}  {'at x':>16}  correctly rounded")
    # mpmath is the cost; each function is measured on its own core.
    with multiprocessing.get_context("fork").Pool(len(os.sched_getaffinity(0))) as pool:
        for name, (n, worst, at, rounded, bad) in zip(names, pool.imap(measure_job, jobs)):
            print(f"{name:10} {n:8} {worst:8.3f}  {at!r:>16}  {100.0 * rounded / n:.2f}%", flush=True)
            for line in bad[:5]:
                print("  special case:", line)
            failed |= worst > (0.5 if name in CORRECTLY_ROUNDED else BOUND_ULP) or bool(bad)
    if failed:
        print(f"FAILED: an error above {BOUND_ULP} ulp (0.5 for {', '.join(CORRECTLY_ROUNDED)}) or a wrong special case")
        sys.exit(1)


if __name__ == "__main__":
    main()
