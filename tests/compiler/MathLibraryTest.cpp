// The float math library (resources/include/qgpu_math.h) on the machine gives the bits the same source
// gives compiled for this host, as the host executor builds it (host_cuda.h): each function over special,
// subnormal, edge and random arguments, run on the reference interpreter. Its accuracy against mpmath is
// tests/conformance/math_ulp.py.
#include <gtest/gtest.h>

#include <bit>
#include <random>

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

void expectHostBits(const std::string& call, float (*host)(float), float low, float high) {
    for (uint32_t seed : {1u, 2u, 3u}) {
        std::vector<uint32_t> a = arguments(seed, low, high);
        Outcome r = runCuda(call, "float", a, a);
        ASSERT_EQ(r.out.size(), a.size());
        for (size_t i = 0; i < a.size(); ++i)
            EXPECT_EQ(r.out[i], std::bit_cast<uint32_t>(host(std::bit_cast<float>(a[i]))))
                << std::hex << call << " of 0x" << a[i];
    }
}

}  // namespace

TEST(MathLibrary, ExponentialsGiveTheHostsBits) {
    expectHostBits("expf(x)", qgpu_cuda::expf, -104.0f, 89.0f);
    expectHostBits("exp2f(x)", qgpu_cuda::exp2f, -150.0f, 128.0f);
    expectHostBits("exp10f(x)", qgpu_cuda::exp10f, -46.0f, 39.0f);
}

TEST(MathLibrary, LogarithmsGiveTheHostsBits) {
    expectHostBits("logf(x)", qgpu_cuda::logf, 0.5f, 2.0f);
    expectHostBits("log2f(x)", qgpu_cuda::log2f, 1e-30f, 1e30f);
    expectHostBits("log10f(x)", qgpu_cuda::log10f, 0.0f, 1e6f);
}

TEST(MathLibrary, ReciprocalSquareRootGivesTheHostsBits) {
    expectHostBits("rsqrtf(x)", qgpu_cuda::rsqrtf, 1e-30f, 1e30f);
}

TEST(MathLibrary, CppOverloadsAndFastIntrinsicsAreTheFunctions) {
    expectHostBits("exp(x)", qgpu_cuda::expf, -10.0f, 10.0f);
    expectHostBits("__expf(x)", qgpu_cuda::expf, -10.0f, 10.0f);
    expectHostBits("rsqrt(x)", qgpu_cuda::rsqrtf, 0.0f, 10.0f);
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
