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
    const std::map<std::string, Function> functions = {{"expf", qgpu_cuda::expf},     {"exp2f", qgpu_cuda::exp2f},
                                                       {"exp10f", qgpu_cuda::exp10f}, {"logf", qgpu_cuda::logf},
                                                       {"log2f", qgpu_cuda::log2f},   {"log10f", qgpu_cuda::log10f},
                                                       {"rsqrtf", qgpu_cuda::rsqrtf}, {"sinf", qgpu_cuda::sinf},
                                                       {"cosf", qgpu_cuda::cosf},     {"tanhf", qgpu_cuda::tanhf}};
    auto it = argc == 2 ? functions.find(argv[1]) : functions.end();
    if (it == functions.end()) {
        std::fprintf(stderr, "usage: qgpu_conformance_math FUNCTION < BITS > BITS (expf, logf, rsqrtf, ...)\n");
        return 2;
    }
    uint32_t bits;
    while (std::fread(&bits, sizeof bits, 1, stdin) == 1) {
        float x, y;
        std::memcpy(&x, &bits, sizeof x);
        y = it->second(x);
        std::memcpy(&bits, &y, sizeof bits);
        std::fwrite(&bits, sizeof bits, 1, stdout);
    }
    return 0;
}
