#include <gtest/gtest.h>

#include <cstdio>

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

TEST(CudaCompiler, AKernelCannotReadTheHostsFiles) {
    // A file only the host has; a model that writes `#include` with its path must learn nothing of it.
    std::string secret = "qgpu-host-secret-7d3f";
    std::string path = testing::TempDir() + "qgpu_host_secret.h";
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fprintf(f, "#error %s\nint %s;\n", secret.c_str(), secret.c_str());
    std::fclose(f);
    for (std::string include :
         {"#include \"" + path + "\"", std::string("#include \"/etc/passwd\""),
          std::string("#include \"../../../../../../etc/passwd\""), std::string("#include <stdlib.h>"),
          "static const char data[] = {\n#embed \"" + path + "\"\n};"}) {
        CudaCompileResult r = compileCudaToPtx(include + "\n__global__ void k(int* a) { a[0] = 1; }\n", "k.cu");
        EXPECT_FALSE(r.ok) << include;
        std::string all = formatAll(r.diagnostics);
        EXPECT_EQ(all.find(secret), std::string::npos) << all;
        EXPECT_EQ(all.find("root:"), std::string::npos) << all;
        EXPECT_NE(all.find("not found"), std::string::npos) << include << ": " << all;
        EXPECT_EQ(r.diagnostics.front().file, "k.cu") << all;
    }
    CudaCompileResult probe = compileCudaToPtx(
        "#if __has_include(\"/etc/passwd\")\n#error the host is visible\n#endif\n__global__ void k(int* a) { a[0] = "
        "threadIdx.x; }\n",
        "k.cu");
    EXPECT_TRUE(probe.ok) << formatAll(probe.diagnostics);
    std::remove(path.c_str());
}

TEST(CudaCompiler, AnOversizedSourceIsRefusedWithTheLimit) {
    CudaCompileResult r = compileCudaToPtx(std::string(2 << 20, ' '), "big.cu");
    EXPECT_FALSE(r.ok);
    ASSERT_EQ(r.diagnostics.size(), 1u);
    EXPECT_NE(r.diagnostics[0].message.find("more than the limit of 1048576"), std::string::npos);
}

TEST(CudaCompiler, CudaNamesTheMachineLacksSayWhatToWriteInsteadAllInOneBuild) {
    const char* src =
        "__global__ void k(float* a, int* b) {\n"
        "    a[0] = lgamma(a[1]);\n"
        "    a[1] = sqrt(2.0);\n"
        "    b[0] = (int)lgammaf(b[1]);\n"
        "    a[2] = tgammaf(a[3]);\n"
        "    b[3] = atan2(1.0, 2.0);\n"
        "    __nv_bfloat16 h;\n"
        "}\n";
    CudaCompileResult r = compileCudaToPtx(src, "k.cu");
    EXPECT_FALSE(r.ok);
    std::vector<std::pair<int, std::string>> expected = {
        {2, "'lgamma' is not in qgpu's CUDA yet"},  {3, "the machine has no double: give sqrt a float"},
        {4, "'lgammaf' is not in qgpu's CUDA yet"}, {5, "'tgammaf' is not in qgpu's CUDA yet"},
        {6, "the machine has no double"},           {7, "use float"}};
    ASSERT_EQ(r.diagnostics.size(), expected.size()) << formatAll(r.diagnostics);
    for (size_t i = 0; i < expected.size(); ++i) {
        EXPECT_EQ(r.diagnostics[i].line, expected[i].first) << r.diagnostics[i].format();
        EXPECT_NE(r.diagnostics[i].message.find(expected[i].second), std::string::npos) << r.diagnostics[i].format();
    }
    CudaCompileResult groups =
        compileCudaToPtx("__global__ void k() { cooperative_groups::this_thread_block(); }\n", "k.cu");
    ASSERT_FALSE(groups.diagnostics.empty());
    EXPECT_NE(groups.diagnostics[0].message.find("is declared by <cooperative_groups.h>"), std::string::npos);
}
