// CUDA suite kernels inside the model, on the sparse engine: a few that need several warps and thread
// blocks (2-D grids and blocks, guarded tails, atomics across blocks). slow/GpuSuiteAllTest.cpp runs the
// whole suite.
#include "GpuTestSupport.h"

using namespace qgpu;
using namespace qgpu::testing;

TEST(GpuSuite, SeveralWarpsAndThreadBlocks) {
    for (const char* name : {"multi_block", "op_matmul", "guard_partial", "atomic_counter", "outer_product"})
        EXPECT_TRUE(expectSuiteKernel(gpuModel(Engine::Sparse), name)) << name;
}

TEST(GpuSuite, FloatArithmeticOnSpecialValues) {
    EXPECT_TRUE(expectSuiteKernel(gpuModel(Engine::Sparse), "float_special"));
}
