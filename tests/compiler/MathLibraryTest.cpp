// The float math library (resources/include/qgpu_math.h) on the machine gives the bits the same source
// gives compiled for this host, as the host executor builds it (host_cuda.h): each function over special,
// subnormal, edge and random arguments, run on the reference interpreter. Its accuracy against mpmath is
// tests/conformance/math_ulp.py.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <random>

#include "KernelRun.h"
#include "SequenceHarness.h"
#include "host_cuda.h"
#include "qgpu/core/Diagnostic.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

// Arguments: the IEEE specials and edges first, then random bits and random values of the given range.
std::vector<uint32_t> arguments(uint32_t seed, float low, float high) {
    std::vector<uint32_t> v = {0,
                               0x80000000u,
                               0x7f800000u,
                               0xff800000u,
                               0x7fc00000u,
                               1,
                               0x807fffffu,
                               0x3f800000u,
                               0xbf800000u,
                               0x7f7fffffu,
                               std::bit_cast<uint32_t>(low),
                               std::bit_cast<uint32_t>(high)};
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> range(low, high);
    while (v.size() < size_t(kThreads))
        v.push_back(v.size() % 2 ? uint32_t(rng()) : std::bit_cast<uint32_t>(range(rng)));
    return v;
}

// `call` over x (from `arguments`) and y (random bits, every third one an integer below 300) on the machine
// gives host(x, y), bit for bit.
void expectHostBits(const std::string& call, const std::function<uint32_t(float, float)>& host, float low, float high) {
    for (uint32_t seed : {1u, 2u, 3u}) {
        std::vector<uint32_t> a = arguments(seed, low, high), b = arguments(seed + 10, low, high);
        for (size_t i = 0; i < b.size(); i += 3) b[i] = std::bit_cast<uint32_t>(float(int(b[i] % 601) - 300));
        Outcome r = runCuda(call, "float", a, b);
        ASSERT_EQ(r.out.size(), a.size());
        for (size_t i = 0; i < a.size(); ++i)
            EXPECT_EQ(r.out[i], host(std::bit_cast<float>(a[i]), std::bit_cast<float>(b[i])))
                << std::hex << call << " of 0x" << a[i] << ", 0x" << b[i];
    }
}
void expectHostBits(const std::string& call, float (*host)(float), float low, float high) {
    expectHostBits(
        call, [host](float x, float) { return std::bit_cast<uint32_t>(host(x)); }, low, high);
}

}  // namespace

TEST(MathLibrary, ExponentialsGiveTheHostsBits) {
    expectHostBits("expf(x)", qgpu_cuda::expf, -104.0f, 89.0f);
    expectHostBits("exp2f(x)", qgpu_cuda::exp2f, -150.0f, 128.0f);
    expectHostBits("exp10f(x)", qgpu_cuda::exp10f, -46.0f, 39.0f);
}

TEST(MathLibrary, ExponentialLessOneAndHyperbolicFunctionsGiveTheHostsBits) {
    expectHostBits("expm1f(x)", qgpu_cuda::expm1f, -1.0f, 1.0f);
    expectHostBits("expm1(x)", qgpu_cuda::expm1f, -20.0f, 90.0f);
    expectHostBits("sinhf(x)", qgpu_cuda::sinhf, -1.0f, 1.0f);
    expectHostBits("sinh(x)", qgpu_cuda::sinhf, -90.0f, 90.0f);
    expectHostBits("coshf(x)", qgpu_cuda::coshf, -12.0f, 12.0f);
    expectHostBits("cosh(x)", qgpu_cuda::coshf, -90.0f, 90.0f);
}

TEST(MathLibrary, LogarithmsGiveTheHostsBits) {
    expectHostBits("log1pf(x)", qgpu_cuda::log1pf, -0.5f, 0.5f);
    expectHostBits("log1p(x)", qgpu_cuda::log1pf, -1.0f, 1e6f);
    expectHostBits("logf(x)", qgpu_cuda::logf, 0.5f, 2.0f);
    expectHostBits("log2f(x)", qgpu_cuda::log2f, 1e-30f, 1e30f);
    expectHostBits("log10f(x)", qgpu_cuda::log10f, 0.0f, 1e6f);
}

TEST(MathLibrary, ReciprocalSquareRootGivesTheHostsBits) {
    expectHostBits("rsqrtf(x)", qgpu_cuda::rsqrtf, 1e-30f, 1e30f);
}

TEST(MathLibrary, SineCosineAndHyperbolicTangentGiveTheHostsBits) {
    expectHostBits("sinf(x)", qgpu_cuda::sinf, -10.0f, 10.0f);
    expectHostBits("cosf(x)", qgpu_cuda::cosf, -1e6f, 1e6f);
    expectHostBits("tanhf(x)", qgpu_cuda::tanhf, -12.0f, 12.0f);
    expectHostBits("sinpif(x)", qgpu_cuda::sinpif, -5.0f, 5.0f);
    expectHostBits("cospif(x)", qgpu_cuda::cospif, -1e6f, 1e6f);
}

TEST(MathLibrary, ArcTangentsGiveTheHostsBits) {
    expectHostBits("atanf(x)", qgpu_cuda::atanf, -20.0f, 20.0f);
    expectHostBits(
        "atan2f(x, y)", [](float y, float x) { return std::bit_cast<uint32_t>(qgpu_cuda::atan2f(y, x)); }, -5.0f, 5.0f);
    expectHostBits(
        "atan2(y, x)", [](float y, float x) { return std::bit_cast<uint32_t>(qgpu_cuda::atan2f(x, y)); }, -5.0f, 5.0f);
}

TEST(MathLibrary, ArcSinesAndCosinesGiveTheHostsBits) {
    expectHostBits("asinf(x)", qgpu_cuda::asinf, -1.0f, 1.0f);
    expectHostBits("asin(x)", qgpu_cuda::asinf, 0.5f, 1.0f);
    expectHostBits("acosf(x)", qgpu_cuda::acosf, -1.0f, 1.0f);
    expectHostBits("acos(x)", qgpu_cuda::acosf, -1.0f, -0.5f);
}

TEST(MathLibrary, InverseHyperbolicFunctionsGiveTheHostsBits) {
    expectHostBits("asinhf(x)", qgpu_cuda::asinhf, -1.0f, 1.0f);
    expectHostBits("asinh(x)", qgpu_cuda::asinhf, -1e5f, 1e5f);
    expectHostBits("acoshf(x)", qgpu_cuda::acoshf, 1.0f, 1.01f);
    expectHostBits("acosh(x)", qgpu_cuda::acoshf, 1.0f, 1e5f);
    expectHostBits("atanhf(x)", qgpu_cuda::atanhf, -1.0f, 1.0f);
    expectHostBits("atanh(x)", qgpu_cuda::atanhf, -0.01f, 0.01f);
}

TEST(MathLibrary, TangentAndPowerGiveTheHostsBits) {
    expectHostBits("tanf(x)", qgpu_cuda::tanf, -10.0f, 10.0f);
    expectHostBits("tan(x)", qgpu_cuda::tanf, -1e6f, 1e6f);
    expectHostBits("__tanf(x)", qgpu_cuda::tanf, -2.0f, 2.0f);
    auto power = [](float x, float y) { return std::bit_cast<uint32_t>(qgpu_cuda::powf(x, y)); };
    expectHostBits("powf(x, y)", power, -5.0f, 5.0f);
    expectHostBits("pow(x, y)", power, 0.0f, 1e3f);
    expectHostBits("__powf(x, y)", power, 0.99f, 1.01f);
}

TEST(MathLibrary, ErrorFunctionsGiveTheHostsBits) {
    expectHostBits("erff(x)", qgpu_cuda::erff, -1.0f, 1.0f);
    expectHostBits("erf(x)", qgpu_cuda::erff, -4.5f, 4.5f);
    expectHostBits("erfcf(x)", qgpu_cuda::erfcf, -5.0f, 11.0f);
    expectHostBits("erfc(x)", qgpu_cuda::erfcf, -1.0f, 1.0f);
    expectHostBits("erfcxf(x)", qgpu_cuda::erfcxf, -10.0f, 30.0f);
    expectHostBits("erfcx(x)", qgpu_cuda::erfcxf, -1.0f, 1.0f);
}

TEST(MathLibrary, InverseErrorFunctionsGiveTheHostsBits) {
    expectHostBits("erfinvf(x)", qgpu_cuda::erfinvf, -1.0f, 1.0f);
    expectHostBits("erfinv(x)", qgpu_cuda::erfinvf, 0.7f, 1.0f);
    expectHostBits("erfcinvf(x)", qgpu_cuda::erfcinvf, 0.0f, 2.0f);
    expectHostBits("erfcinv(x)", qgpu_cuda::erfcinvf, 0.0f, 1e-30f);
}

TEST(MathLibrary, CorrectlyRoundedReciprocalRootGivesTheHostsBits) {
    expectHostBits("__frsqrt_rn(x)", qgpu_cuda::__frsqrt_rn, 0.0f, 1e6f);
}

TEST(MathLibrary, CubeRootsGiveTheHostsBits) {
    expectHostBits("cbrtf(x)", qgpu_cuda::cbrtf, -100.0f, 100.0f);
    expectHostBits("rcbrtf(x)", qgpu_cuda::rcbrtf, -1e-3f, 1e6f);
    expectHostBits("cbrt(x)", qgpu_cuda::cbrtf, 0.0f, 1e-30f);
}

TEST(MathLibrary, HypotenuseGivesTheHostsBits) {
    expectHostBits(
        "hypotf(x, y)", [](float x, float y) { return std::bit_cast<uint32_t>(qgpu_cuda::hypotf(x, y)); }, -1e3f, 1e3f);
}

// sincosf computes both in one loop that spills a few words, too many for the harness's 128 threads:
// one block of 32 threads here, over bit patterns in unsigned arrays.
TEST(MathLibrary, SincosGivesTheHostsSineAndCosine) {
    std::vector<uint32_t> x = arguments(4, -1e4f, 1e4f);
    x.resize(32);
    std::string values;
    for (uint32_t v : x) values += (values.empty() ? "" : ", ") + std::to_string(v);
    auto out = tests::runToEnd(
        "__global__ void k(const unsigned* x, unsigned* s, unsigned* c) {\n"
        "  float sine, cosine;\n"
        "  sincosf(__uint_as_float(x[threadIdx.x]), &sine, &cosine);\n"
        "  s[threadIdx.x] = __float_as_uint(sine);\n"
        "  c[threadIdx.x] = __float_as_uint(cosine);\n"
        "}\n",
        R"({"grid": 1, "block": 32, "args": [{"name": "x", "type": "u32", "array": [)" + values +
            R"(]}, {"name": "s", "type": "u32", "zeros": 32}, {"name": "c", "type": "u32", "zeros": 32}]})");
    for (size_t i = 0; i < x.size(); ++i) {
        float sine, cosine;
        qgpu_cuda::sincosf(std::bit_cast<float>(x[i]), &sine, &cosine);
        EXPECT_EQ(uint32_t(out.at("s")[i]), std::bit_cast<uint32_t>(sine)) << std::hex << "sin of 0x" << x[i];
        EXPECT_EQ(uint32_t(out.at("c")[i]), std::bit_cast<uint32_t>(cosine)) << std::hex << "cos of 0x" << x[i];
    }
}

TEST(MathLibrary, ExactFunctionsGiveTheHostsBits) {
    auto bits = [](float f) { return std::bit_cast<uint32_t>(f); };
    expectHostBits("roundf(x)", qgpu_cuda::roundf, -1e7f, 1e7f);
    expectHostBits(
        "fmodf(x, y)", [&](float x, float y) { return bits(qgpu_cuda::fmodf(x, y)); }, -1e3f, 1e3f);
    expectHostBits(
        "remainderf(x, y)", [&](float x, float y) { return bits(qgpu_cuda::remainderf(x, y)); }, -1e3f, 1e3f);
    expectHostBits(
        "({ int q; float r = remquof(x, y, &q); __uint_as_float(__float_as_uint(r) + q); })",
        [&](float x, float y) {
            int q;
            float r = qgpu_cuda::remquof(x, y, &q);
            return bits(r) + uint32_t(q);
        },
        -1e3f, 1e3f);
    expectHostBits(
        "fdimf(x, y)", [&](float x, float y) { return bits(qgpu_cuda::fdimf(x, y)); }, -1e3f, 1e3f);
    expectHostBits(
        "nextafterf(x, y)", [&](float x, float y) { return bits(qgpu_cuda::nextafterf(x, y)); }, -1.0f, 1.0f);
    expectHostBits(
        "ldexpf(x, __float2int_rz(y))",
        [&](float x, float y) { return bits(qgpu_cuda::ldexpf(x, qgpu_cuda::__float2int_rz(y))); }, -1e3f, 1e3f);
    expectHostBits(
        "__int_as_float(ilogbf(x))", [](float x, float) { return uint32_t(qgpu_cuda::ilogbf(x)); }, -1e3f, 1e3f);
    expectHostBits("logbf(x)", qgpu_cuda::logbf, -1e-30f, 1e30f);
    expectHostBits(
        "({ int e; float f = frexpf(x, &e); __uint_as_float(__float_as_uint(f) + e); })",
        [&](float x, float) {
            int e;
            float f = qgpu_cuda::frexpf(x, &e);
            return bits(f) + uint32_t(e);
        },
        -1e3f, 1e3f);
    expectHostBits(
        "({ float w; float f = modff(x, &w); __uint_as_float(__float_as_uint(f) ^ __float_as_uint(w)); })",
        [&](float x, float) {
            float w, f = qgpu_cuda::modff(x, &w);
            return bits(f) ^ bits(w);
        },
        -1e8f, 1e8f);
    expectHostBits(
        "__int_as_float((int)lroundf(x))", [](float x, float) { return uint32_t(qgpu_cuda::lroundf(x)); }, -1e9f, 1e9f);
}

// The host's build of the exact functions against the C library's, which are exact too, over 200,000
// arguments: every exponent, small integers and halves, and the IEEE specials (NaN only as NaN).
TEST(MathLibrary, ExactFunctionsAreExact) {
    std::mt19937 rng(7);
    auto arg = [&rng] {
        uint32_t u = rng();
        if (rng() % 4 == 0) u = (u & 0x80000000u) | (u % 0x02000000u);  // tiny and subnormal
        if (rng() % 5 == 0) return float(int(rng() % 2000) - 1000) * 0.5f;
        return std::bit_cast<float>(u);
    };
    auto same = [](float a, float b) {
        return (std::isnan(a) && std::isnan(b)) || std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
    };
    for (int i = 0; i < 200000; ++i) {
        float x = arg(), y = arg(), w1, w2;
        int n = int(rng() % 601) - 300, e1, e2;
        ASSERT_TRUE(same(qgpu_cuda::roundf(x), std::round(x))) << "roundf " << x;
        ASSERT_TRUE(same(qgpu_cuda::fmodf(x, y), std::fmod(x, y))) << "fmodf " << x << ", " << y;
        int q1, q2;
        ASSERT_TRUE(same(qgpu_cuda::remquof(x, y, &q1), std::remquo(x, y, &q2))) << "remquof " << x << ", " << y;
        if (!std::isnan(std::remainder(x, y)))
            ASSERT_EQ(q1, q2 < 0 ? -(-q2 & 7) : q2 & 7) << "remquof " << x << ", " << y;
        ASSERT_TRUE(same(qgpu_cuda::fdimf(x, y), std::fdim(x, y))) << "fdimf " << x << ", " << y;
        ASSERT_TRUE(same(qgpu_cuda::nextafterf(x, y), std::nextafter(x, y))) << "nextafterf " << x << ", " << y;
        ASSERT_TRUE(same(qgpu_cuda::ldexpf(x, n), std::ldexp(x, n))) << "ldexpf " << x << ", " << n;
        ASSERT_EQ(qgpu_cuda::ilogbf(x), std::ilogb(x)) << "ilogbf " << x;
        ASSERT_TRUE(same(qgpu_cuda::logbf(x), std::logb(x))) << "logbf " << x;
        ASSERT_TRUE(same(qgpu_cuda::frexpf(x, &e1), std::frexp(x, &e2))) << "frexpf " << x;
        if (std::isfinite(x)) ASSERT_EQ(e1, e2) << "frexpf " << x;
        ASSERT_TRUE(same(qgpu_cuda::modff(x, &w1), std::modf(x, &w2)) && same(w1, w2)) << "modff " << x;
    }
}

TEST(MathLibrary, CppOverloadsAndFastIntrinsicsAreTheFunctions) {
    expectHostBits("exp(x)", qgpu_cuda::expf, -10.0f, 10.0f);
    expectHostBits("__expf(x)", qgpu_cuda::expf, -10.0f, 10.0f);
    expectHostBits("rsqrt(x)", qgpu_cuda::rsqrtf, 0.0f, 10.0f);
    expectHostBits("sin(x)", qgpu_cuda::sinf, -10.0f, 10.0f);
    expectHostBits("__cosf(x)", qgpu_cuda::cosf, -10.0f, 10.0f);
    expectHostBits("tanh(x)", qgpu_cuda::tanhf, -10.0f, 10.0f);
    expectHostBits(
        "fmod(x, y)", [](float x, float y) { return std::bit_cast<uint32_t>(qgpu_cuda::fmodf(x, y)); }, -1e3f, 1e3f);
}

TEST(MathLibrary, TheDoubleOverloadsAreRefusedAtTheCall) {
    try {
        compileKernel("__global__ void k(float* a) {\n  a[0] = exp(1.5);\n}\n", "k.cu");
        FAIL() << "exp(double) compiled";
    } catch (const DiagnosticError& e) {
        const Diagnostic& d = e.diagnostics().at(0);
        EXPECT_EQ(d.line, 2);
        EXPECT_NE(d.message.find("the machine has no double: give exp a float argument, or call expf"),
                  std::string::npos)
            << d.message;
    }
}
