// The float math library (resources/include/qgpu_math.h) as the host executor builds it, for math_ulp.py:
// reads float bit patterns (little-endian uint32) from stdin and writes FUNCTION of each, as bits, to stdout.
// tests/compiler/MathLibraryTest.cpp checks that the machine gives these same bits.
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <map>
#include <string>

#include "host_cuda.h"

int main(int argc, char** argv) {
    using Function = float (*)(float);
    using Pair = float (*)(float, float);
    const std::map<std::string, Function> functions = {{"expf", qgpu_cuda::expf},
                                                       {"exp2f", qgpu_cuda::exp2f},
                                                       {"exp10f", qgpu_cuda::exp10f},
                                                       {"logf", qgpu_cuda::logf},
                                                       {"log2f", qgpu_cuda::log2f},
                                                       {"log10f", qgpu_cuda::log10f},
                                                       {"rsqrtf", qgpu_cuda::rsqrtf},
                                                       {"sinf", qgpu_cuda::sinf},
                                                       {"cosf", qgpu_cuda::cosf},
                                                       {"sinpif", qgpu_cuda::sinpif},
                                                       {"cospif", qgpu_cuda::cospif},
                                                       {"tanhf", qgpu_cuda::tanhf},
                                                       {"cbrtf", qgpu_cuda::cbrtf},
                                                       {"rcbrtf", qgpu_cuda::rcbrtf},
                                                       {"atanf", qgpu_cuda::atanf},
                                                       {"expm1f", qgpu_cuda::expm1f},
                                                       {"log1pf", qgpu_cuda::log1pf},
                                                       {"sinhf", qgpu_cuda::sinhf},
                                                       {"coshf", qgpu_cuda::coshf},
                                                       {"asinf", qgpu_cuda::asinf},
                                                       {"acosf", qgpu_cuda::acosf},
                                                       {"atanhf", qgpu_cuda::atanhf},
                                                       {"asinhf", qgpu_cuda::asinhf},
                                                       {"acoshf", qgpu_cuda::acoshf},
                                                       {"tanf", qgpu_cuda::tanf},
                                                       {"erff", qgpu_cuda::erff},
                                                       {"erfcf", qgpu_cuda::erfcf},
                                                       {"erfcxf", qgpu_cuda::erfcxf},
                                                       {"erfinvf", qgpu_cuda::erfinvf},
                                                       {"erfcinvf", qgpu_cuda::erfcinvf},
                                                       {"__frsqrt_rn", qgpu_cuda::__frsqrt_rn}};
    const std::map<std::string, Pair> pairs = {{"atan2f", qgpu_cuda::atan2f},
                                               {"hypotf", qgpu_cuda::hypotf},
                                               {"powf", qgpu_cuda::powf}};  // two floats in per result
    auto one = argc == 2 ? functions.find(argv[1]) : functions.end();
    auto two = argc == 2 ? pairs.find(argv[1]) : pairs.end();
    if (one == functions.end() && two == pairs.end()) {
        std::fprintf(stderr, "usage: qgpu_conformance_math FUNCTION < BITS > BITS (expf, logf, atan2f, ...)\n");
        return 2;
    }
    const size_t arity = one != functions.end() ? 1 : 2;
    uint32_t bits[2];
    while (std::fread(bits, sizeof bits[0], arity, stdin) == arity) {
        float x, y, r;
        std::memcpy(&x, &bits[0], sizeof x);
        std::memcpy(&y, &bits[1], sizeof y);
        r = arity == 1 ? one->second(x) : two->second(x, y);
        std::memcpy(&bits[0], &r, sizeof r);
        std::fwrite(&bits[0], sizeof bits[0], 1, stdout);
    }
    return 0;
}
