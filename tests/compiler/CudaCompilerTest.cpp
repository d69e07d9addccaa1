#include <gtest/gtest.h>

#include "qgpu/compiler/CudaCompiler.h"

using namespace qgpu;

TEST(CudaCompiler, EmitsPtxForIntegerKernelWithAtomicsAndShuffles) {
    const char* src = R"(
__global__ void k(const int* a, int* out) {
    int i = threadIdx.x;
    atomicAdd(out, a[i]);
    out[1 + i] = __shfl_down_sync(0xf, a[i], 1);
    __syncthreads();
}
)";
    CudaCompileResult r = compileCudaToPtx(src, "k.cu");
    ASSERT_TRUE(r.ok) << formatAll(r.diagnostics);
    EXPECT_NE(r.ptx.find(".visible .entry _Z1kPKiPi"), std::string::npos);
    EXPECT_NE(r.ptx.find("atom.global.add.u32"), std::string::npos);
    // width 4 on a 4-lane warp: segment mask 28 in bits 8..12, clamp 31
    EXPECT_NE(r.ptx.find("shfl.sync.down.b32"), std::string::npos);
    EXPECT_NE(r.ptx.find("7199"), std::string::npos);
    EXPECT_NE(r.ptx.find("bar.sync"), std::string::npos);
    EXPECT_NE(r.ptx.find(".loc"), std::string::npos) << "line info is needed for the source map";
}

TEST(CudaCompiler, ReportsErrorsAtTheUsersFileLineAndColumn) {
    CudaCompileResult r = compileCudaToPtx("__global__ void f(int* a) {\n  a[0] = missing;\n}\n", "user/kernel.cu");
    EXPECT_FALSE(r.ok);
    ASSERT_FALSE(r.diagnostics.empty());
    const Diagnostic& d = r.diagnostics.front();
    EXPECT_EQ(d.file, "user/kernel.cu");
    EXPECT_EQ(d.line, 2);
    EXPECT_EQ(d.column, 10);
    EXPECT_NE(d.message.find("undeclared identifier 'missing'"), std::string::npos) << d.message;
}

TEST(CudaCompiler, OptimisationLevelsAllCompile) {
    const char* src =
        "__global__ void f(int* a, int n) { for (int i = threadIdx.x; i < n; i += blockDim.x) a[i] *= 2; }";
    for (int o = 0; o <= 3; ++o) {
        CudaCompileOptions opts;
        opts.optLevel = o;
        CudaCompileResult r = compileCudaToPtx(src, "f.cu", opts);
        EXPECT_TRUE(r.ok) << "-O" << o << ": " << formatAll(r.diagnostics);
    }
}
