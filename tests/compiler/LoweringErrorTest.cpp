// Every class of CUDA the machine cannot run gets an error naming the user's file and line.
#include <gtest/gtest.h>

#include "qgpu/compiler/Frontend.h"

using namespace qgpu;

namespace {

Diagnostic firstError(const std::string& src) {
    try {
        compileKernel(src, "k.cu");
    } catch (const DiagnosticError& e) {
        return e.diagnostics().at(0);
    }
    ADD_FAILURE() << "expected an error for:\n" << src;
    return {};
}

void expectError(const std::string& src, int line, const std::string& text) {
    Diagnostic d = firstError(src);
    EXPECT_EQ(d.file, "k.cu");
    if (line > 0) {
        EXPECT_EQ(d.line, line) << d.format();
    }
    EXPECT_NE(d.message.find(text), std::string::npos) << d.format();
}

}  // namespace

TEST(LoweringErrors, FloatsOtherThanSinglePrecisionAndApproximateOnes) {
    expectError("__global__ void k(double* a) {\n  a[0] = a[1] * 1.5;\n}\n", 2, "double and half precision");
    expectError("__global__ void k(float* a) {\n  double d = a[1];\n  a[0] = d * d * d;\n}\n", 2,
                "double and half precision");
    expectError("__global__ void k(float* a) {\n  a[0] = __nvvm_sin_approx_f(a[1]);\n}\n", 2, "call sinf()");
    expectError("__global__ void k(float* a) {\n  a[0] = __nvvm_ex2_approx_f(a[1]);\n}\n", 2, "call exp2f()");
}

TEST(LoweringErrors, SixtyFourBitOperationsBeyondTheMachine) {
    expectError("__global__ void k(double* a) {\n  a[0] = a[1] + 1;\n}\n", 2, "double and half precision");
}

TEST(LoweringErrors, BytePermuteWithARunTimeSelector) {
    expectError("__global__ void k(unsigned* a) {\n  a[0] = __byte_perm(a[1], a[2], a[3]);\n}\n", 2,
                "constant selector");
}

TEST(LoweringErrors, SharedMemoryTooLarge) {
    expectError(
        "__global__ void k(int* a) {\n  __shared__ int big[100];\n  big[threadIdx.x] = 1;\n"
        "  __syncthreads();\n  a[threadIdx.x] = big[99 - threadIdx.x];\n}\n",
        0, "__shared__ arrays need 100 words");
}

TEST(LoweringErrors, TooManyBlocksForTheRom) {
    std::string body;
    for (int i = 0; i < 140; ++i)
        body += "  if (a[" + std::to_string(i) + "] > " + std::to_string(i) + ") a[" + std::to_string(i + 1) +
                "] += " + std::to_string(i) + ";\n";
    expectError("__global__ void k(int* a) {\n" + body + "}\n", 0, "the ROM holds 128");
}

TEST(LoweringErrors, CompileErrorsKeepTheirPosition) {
    Diagnostic d = firstError("__global__ void k(int* a) {\n  a[0] = undefined_name;\n}\n");
    EXPECT_EQ(d.line, 2);
    EXPECT_EQ(d.column, 10);
}

TEST(LoweringErrors, OneKernelPerFile) {
    expectError("__global__ void k(int* a) { a[0] = 1; }\n__global__ void j(int* a) { a[0] = 2; }\n", 0,
                "more than one __global__");
    expectError("__device__ int f(int x) { return x; }\n", 0, "no __global__");
}

TEST(LoweringErrors, HugeSharedArraysDoNotOverflow) {
    expectError(
        "__global__ void k(int* a) {\n  __shared__ int big[1073741824];\n  big[threadIdx.x] = 1;\n"
        "  __syncthreads();\n  a[threadIdx.x] = big[threadIdx.x + 1];\n}\n",
        0, "make it smaller");
}

TEST(LoweringErrors, ByteArraysCompileWithTheirElementTypes) {
    // Pointers to bytes and halfwords (and CUDA's vectors of them) carry their element type to the launch.
    const std::vector<std::pair<std::string, ElementType>> types = {
        {"bool", ElementType::Bool},          {"const bool", ElementType::Bool}, {"char", ElementType::I8},
        {"unsigned char", ElementType::U8},   {"signed char", ElementType::I8},  {"short", ElementType::I16},
        {"unsigned short", ElementType::U16}, {"uchar4", ElementType::U8},       {"short2", ElementType::I16},
        {"unsigned", ElementType::U32},       {"float4", ElementType::F32},      {"int", ElementType::I32}};
    for (const auto& [type, element] : types) {
        CompiledKernel k = compileKernel(
            "__global__ void k(" + type + "* mask, int* out) {\n  out[0] = *(const char*)&mask[2];\n}\n", "k.cu");
        ASSERT_EQ(k.kernel.program.params.size(), 2u) << type;
        EXPECT_EQ(k.kernel.program.params[0].element, element) << type;
    }
    // An int's bytes at constant offsets stay what Clang makes of `x >> 24`.
    CompiledKernel k = compileKernel("__global__ void k(int* a) { a[threadIdx.x] = a[threadIdx.x] >> 24; }\n", "k.cu");
    EXPECT_FALSE(k.kernel.program.blocks.empty());
}

TEST(LoweringErrors, FencesReadOnlyLoadsAndLaunchBoundsAreAccepted) {
    // No-ops on a machine whose warps run until they exit or wait, and whose memory is one; the launch
    // bounds' parentheses are not taken for the parameter list.
    CompiledKernel k = compileKernel(
        "__global__ void __launch_bounds__(128) k(const int* __restrict__ a, int* __restrict__ out) {\n"
        "  int v = __ldg(&a[threadIdx.x]);\n  __threadfence();\n  __threadfence_block();\n"
        "  __threadfence_system();\n  __nanosleep(100);\n"
        "  out[threadIdx.x] = v + ((const int*)__builtin_assume_aligned(a, 16))[0];\n}\n",
        "k.cu");
    ASSERT_EQ(k.kernel.program.params.size(), 2u);
    EXPECT_EQ(k.kernel.program.params[0].name, "a");
    EXPECT_EQ(k.kernel.program.params[1].name, "out");
}

// Warp code written for CUDA's 32 threads (offsets and lanes past the machine's 4-lane warp, or an explicit
// width of 32) would run on 4-lane quads and give other answers than a GPU: it is refused at its line.
TEST(LoweringErrors, ShufflesWrittenForThirtyTwoThreadWarpsAreRefused) {
    const std::string head = "__global__ void k(int* a, int* out) {\n  int v = a[threadIdx.x];\n";
    expectError(head +
                    "  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);\n"
                    "  if (threadIdx.x % 32 == 0) atomicAdd(out, v);\n}\n",
                3, "this shuffle has offset 16, past the warp; CUDA's warp has 32 threads but qgpu's has 4");
    const std::string one = "__global__ void k(int* a, int* out) {\n  out[threadIdx.x] = ";
    expectError(one + "__shfl_sync(0xffffffff, a[threadIdx.x], 5);\n}\n", 2, "reads lane 5, past the warp");
    expectError(one + "__shfl_xor_sync(0xffffffff, a[threadIdx.x], 8);\n}\n", 2, "exchanges across lane mask 8");
    expectError(one + "__shfl_up_sync(0xffffffff, a[threadIdx.x], 1, 32);\n}\n", 2,
                "this shuffle spans 32 lanes (its width)");
    // The same reduction written from warpSize compiles.
    compileKernel(head +
                      "  for (int offset = warpSize / 2; offset > 0; offset /= 2)\n"
                      "    v += __shfl_down_sync(0xffffffff, v, offset);\n"
                      "  if (threadIdx.x % warpSize == 0) atomicAdd(out, v);\n}\n",
                  "k.cu");
}
