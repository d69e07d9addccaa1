// fp32 on the machine (FloatSequences.h): every float instruction, run on the reference interpreter over
// special, subnormal, boundary and random operands, against the host's own IEEE-754 arithmetic in the
// rounding mode the instruction names (hand-written PTX, so every mode and .ftz form is reached), and the
// PTX definitions where C++ has none (saturating conversions, NaN-ignoring min/max, canonical NaN).
#include <gtest/gtest.h>

#include <bit>
#include <cfenv>
#include <climits>
#include <cmath>
#include <functional>
#include <random>

#include "SequenceHarness.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

constexpr uint32_t kNan = 0x7fffffffu, kSign = 0x80000000u;

float asFloat(uint32_t bits) { return std::bit_cast<float>(bits); }
uint32_t bitsOf(float f) { return std::isnan(f) ? kNan : std::bit_cast<uint32_t>(f); }

const std::vector<uint32_t> kSpecials = {
    0,          kSign,      0x7f800000, 0xff800000, kNan,       0xffc00001, 0x3f800000, 0xbf800000,
    0x7f7fffff, 0xff7fffff, 0x00800000, 0x80800000, 0x007fffff, 0x807fffff, 0x00000001, 0x80000001,
    0x00400000, 0x3f000000, 0x3fc00000, 0x40200000, 0x4b000000, 0x4b7fffff, 0x4f000000, 0xcf000000,
    0x4f800000, 0x5f800000, 0x3effffff, 0xbf000000, 0x3f7fffff, 0x33800000, 0x34000000, 0x7f000000};

// Floats from every range: specials, random bits, and random significands at small, ordinary, huge and
// subnormal exponents.
std::vector<uint32_t> floats(uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<uint32_t> v;
    for (int i = 0; i < kThreads; ++i) {
        uint32_t sign = rng() % 2 ? kSign : 0, fraction = rng() & 0x7fffff;
        switch (rng() % 6) {
            case 0: v.push_back(kSpecials[rng() % kSpecials.size()]); break;
            case 1: v.push_back(uint32_t(rng())); break;
            case 2: v.push_back(sign | fraction | (rng() % 4) << 23); break;          // subnormal and tiny
            case 3: v.push_back(sign | fraction | (251 + rng() % 4) << 23); break;    // near overflow
            default: v.push_back(sign | fraction | (110 + rng() % 34) << 23); break;  // ordinary
        }
    }
    return v;
}

// Second operands: unrelated ones, and ones that meet the first in a cancellation, a tie or a carry.
std::vector<uint32_t> partners(uint32_t seed, const std::vector<uint32_t>& a) {
    std::mt19937 rng(seed);
    std::vector<uint32_t> b = floats(seed + 1000);
    for (size_t i = 0; i < a.size(); ++i) switch (rng() % 4) {
            case 0: b[i] = (a[i] ^ kSign) + (rng() % 5) - 2; break;  // near cancellation
            case 1: b[i] = (a[i] & kSign) | ((a[i] & 0x7f800000) - ((rng() % 30) << 23)) | (rng() & 0x7fffff); break;
            default: break;
        }
    return b;
}

const char* kModes[] = {"rn", "rz", "rm", "rp"};
const int kHostModes[] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};

// f(x, y) in the host's arithmetic under a rounding mode; .ftz flushes subnormal inputs and results.
uint32_t host(const std::function<float(float, float)>& f, uint32_t a, uint32_t b, int mode, bool flush) {
    auto flushed = [&](uint32_t x) { return flush && (x & 0x7fffffff) < 0x800000 ? x & kSign : x; };
    std::fesetround(kHostModes[mode]);
    volatile float x = asFloat(flushed(a)), y = asFloat(flushed(b));
    float r = f(x, y);
    std::fesetround(FE_TONEAREST);
    return flushed(bitsOf(r));
}

void expectEach(const Outcome& r, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                const std::function<uint32_t(uint32_t, uint32_t)>& expected, const std::string& what) {
    ASSERT_EQ(r.out.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(r.out[i], expected(a[i], b[i])) << std::hex << what << " of 0x" << a[i] << " and 0x" << b[i];
}

}  // namespace

TEST(FloatSequences, ArithmeticRoundsCorrectlyInEveryModeWithAndWithoutFlush) {
    const std::pair<const char*, std::function<float(float, float)>> ops[] = {
        {"add", [](float x, float y) { return x + y; }},
        {"sub", [](float x, float y) { return x - y; }},
        {"mul", [](float x, float y) { return x * y; }},
        {"div", [](float x, float y) { return x / y; }}};
    for (uint32_t seed : {1u, 2u}) {
        auto a = floats(seed), b = partners(seed, a);
        for (const auto& [name, f] : ops)
            for (int mode = 0; mode < 4; ++mode)
                for (bool flush : {false, true}) {
                    std::string text = std::string(name) + "." + kModes[mode] + (flush ? ".ftz" : "") + ".f32";
                    Outcome r = run(ptxKernel(text + " %r4, %r1, %r2"), a, b, a);
                    expectEach(
                        r, a, b, [&](uint32_t x, uint32_t y) { return host(f, x, y, mode, flush); }, text);
                }
        auto c = floats(seed + 2000);
        for (size_t i = 0; i < c.size(); i += 3) c[i] = bitsOf(-(asFloat(a[i]) * asFloat(b[i])));  // cancellations
        for (int mode = 0; mode < 4; ++mode)
            for (bool flush : {false, true}) {
                std::string text = std::string("fma.") + kModes[mode] + (flush ? ".ftz" : "") + ".f32";
                Outcome r = run(ptxKernel(text + " %r4, %r1, %r2, %r3"), a, b, c);
                for (size_t i = 0; i < a.size(); ++i) {
                    uint32_t z = c[i];
                    auto fused = [&](float x, float y) {
                        volatile float w = asFloat(flush && (z & 0x7fffffff) < 0x800000 ? z & kSign : z);
                        return std::fma(x, y, float(w));
                    };
                    EXPECT_EQ(r.out[i], host(fused, a[i], b[i], mode, flush))
                        << std::hex << text << " of 0x" << a[i] << ", 0x" << b[i] << ", 0x" << z;
                }
            }
        auto root = [](float x, float) { return std::sqrt(x); };
        for (int mode = 0; mode < 4; ++mode)
            for (bool flush : {false, true}) {
                std::string text = std::string("sqrt.") + kModes[mode] + (flush ? ".ftz" : "") + ".f32";
                Outcome r = run(ptxKernel(text + " %r4, %r1"), a, b, a);
                expectEach(
                    r, a, b, [&](uint32_t x, uint32_t) { return host(root, x, 0, mode, flush); }, text);
            }
    }
}

TEST(FloatSequences, ComparisonsOrderedAndUnordered) {
    const std::pair<const char*, std::function<bool(float, float)>> compares[] = {
        {"eq", [](float x, float y) { return x == y; }},
        {"ne", [](float x, float y) { return x < y || x > y; }},
        {"lt", [](float x, float y) { return x < y; }},
        {"le", [](float x, float y) { return x <= y; }},
        {"gt", [](float x, float y) { return x > y; }},
        {"ge", [](float x, float y) { return x >= y; }},
        {"equ", [](float x, float y) { return !(x < y || x > y); }},
        {"neu", [](float x, float y) { return x != y; }},
        {"ltu", [](float x, float y) { return !(x >= y); }},
        {"leu", [](float x, float y) { return !(x > y); }},
        {"gtu", [](float x, float y) { return !(x <= y); }},
        {"geu", [](float x, float y) { return !(x < y); }},
        {"num", [](float x, float y) { return !std::isnan(x) && !std::isnan(y); }},
        {"nan", [](float x, float y) { return std::isnan(x) || std::isnan(y); }}};
    auto a = floats(3), b = partners(3, a);
    for (size_t i = 0; i < 16; ++i) b[i] = a[i];                                     // equal
    for (size_t i = 16; i < 20; ++i) a[i] = i % 2 ? 0 : kSign, b[i] = a[i] ^ kSign;  // -0 and +0
    for (const auto& [name, f] : compares)
        for (bool flush : {false, true}) {
            std::string text = std::string("setp.") + name + (flush ? ".ftz" : "") + ".f32";
            Outcome r = run(ptxKernel(text + " %p1, %r1, %r2;\n\tselp.u32 %r4, 1, 0, %p1"), a, b, a);
            expectEach(
                r, a, b,
                [&](uint32_t x, uint32_t y) {
                    return uint32_t(host([&](float p, float q) { return float(f(p, q)); }, x, y, 0, flush) != 0);
                },
                text);
        }
    Outcome imm = run(ptxKernel("setp.ltu.f32 %p1, %r1, 0f3F800000;\n\tselp.u32 %r4, 1, 0, %p1"), a, b, a);
    expectEach(
        imm, a, b, [](uint32_t x, uint32_t) { return uint32_t(!(asFloat(x) >= 1.0f)); }, "setp.ltu with 1.0");
}

TEST(FloatSequences, MinMaxNegateAndAbsolute) {
    auto a = floats(4), b = partners(4, a);
    for (size_t i = 0; i < 4; ++i) a[i] = i % 2 ? 0 : kSign, b[i] = a[i] ^ kSign;
    auto ptxMin = [](uint32_t x, uint32_t y, bool isMax) {  // NaNs ignored; -0 below +0
        float p = asFloat(x), q = asFloat(y);
        if (std::isnan(p) && std::isnan(q)) return kNan;
        if (std::isnan(p)) return y;
        if (std::isnan(q)) return x;
        if (p == q) return isMax ? x & y : x | y;  // equal bits, or zeros: -0 wins min
        return (p < q) != isMax ? x : y;
    };
    for (bool isMax : {false, true}) {
        Outcome r = run(ptxKernel(std::string(isMax ? "max" : "min") + ".f32 %r4, %r1, %r2"), a, b, a);
        expectEach(
            r, a, b, [&](uint32_t x, uint32_t y) { return ptxMin(x, y, isMax); }, isMax ? "max" : "min");
    }
    Outcome neg = run(ptxKernel("neg.f32 %r4, %r1"), a, b, a);
    expectEach(
        neg, a, b, [](uint32_t x, uint32_t) { return bitsOf(-asFloat(x)); }, "neg");
    Outcome abs = run(ptxKernel("abs.ftz.f32 %r4, %r1"), a, b, a);
    expectEach(
        abs, a, b, [](uint32_t x, uint32_t) { return (x & 0x7fffffff) < 0x800000 ? 0 : bitsOf(std::fabs(asFloat(x))); },
        "abs.ftz");
}

TEST(FloatSequences, ConversionsRoundSaturateAndTurnNanIntoZero) {
    auto f = floats(5);
    for (size_t i = 0; i < 24; ++i)  // halves for ties, and the saturation boundaries
        f[i] = std::bit_cast<uint32_t>(float(int(i) - 12) + 0.5f);
    f[24] = 0x4f000000, f[25] = 0xcf000000, f[26] = 0x4f800000, f[27] = 0x4effffff, f[28] = 0xcf000001;
    auto ints = operands(6, {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x01000001u, 0x00ffffffu, 0x7fffffc0u});
    for (int mode = 0; mode < 4; ++mode) {
        auto rounded = [mode](double x) {
            return mode == 0 ? std::nearbyint(x) : mode == 1 ? std::trunc(x) : mode == 2 ? std::floor(x) : std::ceil(x);
        };
        for (bool isSigned : {true, false}) {
            std::string type = isSigned ? "s32" : "u32";
            std::string toInt = std::string("cvt.") + kModes[mode] + "i." + type + ".f32";
            Outcome r = run(ptxKernel(toInt + " %r4, %r1"), f, f, f);
            expectEach(
                r, f, f,
                [&](uint32_t x, uint32_t) -> uint32_t {
                    if (std::isnan(asFloat(x))) return 0;
                    double v = rounded(double(asFloat(x)));
                    if (isSigned)
                        return v >= 2147483648.0   ? INT_MAX
                               : v < -2147483648.0 ? uint32_t(INT_MIN)
                                                   : uint32_t(int32_t(v));
                    return v >= 4294967296.0 ? 0xffffffffu : v < 0 ? 0 : uint32_t(v);
                },
                toInt);
            std::string toFloat = std::string("cvt.") + kModes[mode] + ".f32." + type;
            Outcome back = run(ptxKernel(toFloat + " %r4, %r1"), ints, ints, ints);
            expectEach(
                back, ints, ints,
                [&](uint32_t x, uint32_t) {
                    return host(
                        [&](float, float) {
                            return isSigned ? float(*(volatile int32_t*)&x) : float(*(volatile uint32_t*)&x);
                        },
                        0, 0, mode, false);
                },
                toFloat);
        }
        std::string integral = std::string("cvt.") + kModes[mode] + "i.f32.f32";
        Outcome r = run(ptxKernel(integral + " %r4, %r1"), f, f, f);
        expectEach(
            r, f, f,
            [&](uint32_t x, uint32_t) {
                float v = asFloat(x);
                return bitsOf(mode == 0   ? std::nearbyint(v)
                              : mode == 1 ? std::trunc(v)
                              : mode == 2 ? std::floor(v)
                                          : std::ceil(v));
            },
            integral);
    }
}

// (x * y + y) * x - (float)(int)y + fmaxf(x - 1.0f, y) * 0.5f on the host, contracted as Clang's CUDA default
// contracts it (each product into the sum that uses it) or with every operation rounded on its own.
uint32_t expressionOnHost(uint32_t p, uint32_t q, bool contract) {
    volatile float x = asFloat(p), y = asFloat(q);
    float c = std::isnan(y) || std::fabs(y) >= 2147483648.0f ? 0.0f : float(int(y));
    if (!std::isnan(y) && std::fabs(y) >= 2147483648.0f) c = y > 0 ? float(INT_MAX) : float(INT_MIN);
    volatile float m = x - 1.0f;
    m = std::isnan(m) ? y : std::isnan(y) ? m : std::fmax(m, y);
    if (contract) return bitsOf(std::fma(m, 0.5f, std::fma(std::fma(x, y, y), x, -c)));
    volatile float t = x * y;
    t = t + y;
    t = t * x;
    volatile float h = m * 0.5f, s = t - c;
    return bitsOf(s + h);
}

TEST(FloatSequences, CudaKernelSharesEachRoutineBetweenItsUses) {
    auto a = floats(7), b = partners(7, a);
    std::string expression = "(x * y + y) * x - (float)(int)y + fmaxf(x - 1.0f, y) * 0.5f";
    for (bool contract : {true, false}) {
        CudaCompileOptions options;
        options.fuseMultiplyAdd = contract;
        Outcome r = runCuda(expression, "float", a, b, options);
        expectEach(
            r, a, b, [&](uint32_t p, uint32_t q) { return expressionOnHost(p, q, contract); },
            contract ? "contracted" : "--fmad false");
    }
}

TEST(FloatSequences, SaturationReciprocalAndTheApproximateDivisions) {
    auto a = floats(8), b = partners(8, a);
    auto saturated = [](uint32_t x) {
        float v = asFloat(x);
        return std::isnan(v) || v <= 0.0f ? 0u : v >= 1.0f ? 0x3f800000u : x;
    };
    Outcome add = run(ptxKernel("add.rz.sat.f32 %r4, %r1, %r2"), a, b, a);
    expectEach(
        add, a, b, [&](uint32_t x, uint32_t y) { return saturated(host(std::plus<float>(), x, y, 1, false)); },
        "add.rz.sat");
    Outcome fma = run(ptxKernel("fma.rn.sat.f32 %r4, %r1, %r2, %r1"), a, b, a);
    expectEach(
        fma, a, b,
        [&](uint32_t x, uint32_t y) {
            return saturated(host([&](float p, float q) { return std::fma(p, q, p); }, x, y, 0, false));
        },
        "fma.rn.sat");
    Outcome sat = run(ptxKernel("cvt.sat.f32.f32 %r4, %r1"), a, b, a);
    expectEach(
        sat, a, b, [&](uint32_t x, uint32_t) { return saturated(x); }, "cvt.sat.f32.f32");
    for (int mode = 0; mode < 4; ++mode) {
        std::string text = std::string("rcp.") + kModes[mode] + ".f32";
        Outcome r = run(ptxKernel(text + " %r4, %r1"), a, b, a);
        expectEach(
            r, a, b,
            [&](uint32_t x, uint32_t) { return host([](float p, float) { return 1.0f / p; }, x, 0, mode, false); },
            text);
    }
    Outcome root = run(ptxKernel("sqrt.approx.f32 %r4, %r1"), a, b, a);  // within its bound: rounded
    expectEach(
        root, a, b,
        [&](uint32_t x, uint32_t) { return host([](float p, float) { return std::sqrt(p); }, x, 0, 0, false); },
        "sqrt.approx");
    Outcome full = run(ptxKernel("div.full.f32 %r4, %r1, %r2"), a, b, a);
    expectEach(
        full, a, b, [&](uint32_t x, uint32_t y) { return host(std::divides<float>(), x, y, 0, false); }, "div.full");
    b[0] = 0x7e800000u, b[1] = 0xff000000u, b[2] = 0x7e7fffffu, a[1] = 0x7f800000u;  // 2^126, -2^127, below 2^126
    Outcome approx = run(ptxKernel("div.approx.f32 %r4, %r1, %r2"), a, b, a);
    expectEach(
        approx, a, b,
        [&](uint32_t x, uint32_t y) {
            if ((y & 0x7fffffff) >= 0x7e800000u && (y & 0x7fffffff) <= 0x7f800000u)  // the reciprocal flushes to 0
                return std::isfinite(asFloat(x)) ? ((x ^ y) & kSign) : kNan;
            return host(std::divides<float>(), x, y, 0, false);
        },
        "div.approx");
}

TEST(FloatSequences, ClassTestsCopySignAndNanPropagatingMinMax) {
    auto a = floats(9), b = partners(9, a);
    const std::pair<const char*, std::function<bool(float)>> classes[] = {
        {"finite", [](float x) { return std::isfinite(x); }},
        {"infinite", [](float x) { return std::isinf(x); }},
        {"number", [](float x) { return !std::isnan(x); }},
        {"notanumber", [](float x) { return std::isnan(x); }},
        {"normal", [](float x) { return std::isnormal(x); }},
        {"subnormal", [](float x) { return std::fpclassify(x) == FP_SUBNORMAL; }}};
    for (const auto& [name, f] : classes) {
        std::string text = std::string("testp.") + name + ".f32";
        Outcome r = run(ptxKernel(text + " %p1, %r1;\n\tselp.u32 %r4, 1, 0, %p1"), a, b, a);
        expectEach(
            r, a, b, [&](uint32_t x, uint32_t) { return uint32_t(f(asFloat(x))); }, text);
    }
    Outcome copy = run(ptxKernel("copysign.f32 %r4, %r1, %r2"), a, b, a);
    expectEach(
        copy, a, b, [](uint32_t x, uint32_t y) { return (y & 0x7fffffff) | (x & kSign); }, "copysign");
    for (bool isMax : {false, true}) {
        std::string text = std::string(isMax ? "max" : "min") + ".NaN.f32";
        Outcome r = run(ptxKernel(text + " %r4, %r1, %r2"), a, b, a);
        expectEach(
            r, a, b,
            [&](uint32_t x, uint32_t y) {
                float p = asFloat(x), q = asFloat(y);
                if (std::isnan(p) || std::isnan(q)) return kNan;
                if (p == q) return isMax ? x & y : x | y;
                return (p < q) != isMax ? x : y;
            },
            text);
    }
}

TEST(FloatSequences, AtomicAddsApplyInLaneOrderWarpAfterWarp) {
    // 1e8 + 1 rounds back to 1e8 (floats there are 8 apart), so each order of these adds gives its own sum.
    const float pattern[] = {1e8f, 1.0f, -1e8f, 1.0f, 3.0f, -2e8f, 0.5f, 2e8f};
    std::vector<uint32_t> a(kThreads), zero(kThreads, 0);
    for (int i = 0; i < kThreads; ++i) a[size_t(i)] = std::bit_cast<uint32_t>(pattern[i % 8] * float(1 + i / 8));
    CompiledKernel k = compileKernel(
        "__global__ void k(const float* a, const float* b, const float* c, float* out) {\n"
        "  atomicAdd(&out[blockIdx.x * 32], a[blockIdx.x * blockDim.x + threadIdx.x]);\n}\n",
        "k.cu");
    Outcome r = run(k.kernel.program, a, zero, zero, true);
    for (int block = 0; block < kThreads / 32; ++block) {
        volatile float sum = 0.0f;  // threads of a block in order: lanes of warp 0, then warp 1, ...
        for (int t = 0; t < 32; ++t) sum = sum + asFloat(a[size_t(block * 32 + t)]);
        EXPECT_EQ(r.out[size_t(block * 32)], bitsOf(sum)) << "block " << block;
    }
}
