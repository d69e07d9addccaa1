// Runs one operation per thread over operand arrays on the reference interpreter: the harness of the
// sequence tests (SequencesTest.cpp, FloatSequencesTest.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/compiler/CudaCompiler.h"
#include "qgpu/compiler/Frontend.h"

namespace qgpu::testing {

constexpr int kThreads = 128;  // a grid of 4 blocks of 32: one operand pair per thread

// `edges` followed by random words (small ones too), kThreads in all.
std::vector<uint32_t> operands(uint32_t seed, std::vector<uint32_t> edges);

struct Outcome {
    std::vector<uint32_t> out;
    std::vector<std::string> warnings;
};

// Runs `program` over arrays a, b, c (one word per thread) into `out`; float kernels take float arrays.
Outcome run(const Program& program, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
            const std::vector<uint32_t>& c, bool isFloat = false);

// A CUDA kernel computing out[i] = expression over x = a[i], y = b[i] of the given type.
Outcome runCuda(const std::string& expression, const std::string& type, const std::vector<uint32_t>& a,
                const std::vector<uint32_t>& b, const CudaCompileOptions& options = {});

// A kernel in PTX: out[i] = OP(a[i], b[i], c[i]) for the given instruction text over %r1..%r3 into %r4.
Program ptxKernel(const std::string& instruction);

}  // namespace qgpu::testing
