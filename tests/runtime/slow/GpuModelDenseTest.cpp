// The GPU inside the model on the dense LibTorch path (the reference engine); minutes on 2 cores.
#include "../GpuTestSupport.h"
#include "qgpu/compiler/Frontend.h"

using namespace qgpu;
using namespace qgpu::testing;

TEST(GpuModelDense, StraightLineCode) { expectExample(gpuModel(Engine::Dense), Engine::Dense, "straight_line"); }

TEST(GpuModelDense, EveryAluOpcodeAcrossBlocks) {
    expectExample(gpuModel(Engine::Dense), Engine::Dense, "every_alu_op");
}

TEST(GpuModelDense, DivergenceLoopsAndEarlyExit) { expectExample(gpuModel(Engine::Dense), Engine::Dense, "branches"); }

TEST(GpuModelDense, TheDotProductFromCuda) {
    CompiledKernel k = compileKernel(example("dot_product.cu"), "dot_product.cu", MachineSpec::standard());
    expectExact(gpuModel(Engine::Dense), Engine::Dense, k.kernel.program,
                parseLaunchSpec(example("dot_product.json"), "dot_product.json"));
}

TEST(GpuModelDense, SharedMemoryAndBarriersAcrossWarps) {
    expectExample(gpuModel(Engine::Dense), Engine::Dense, "reverse");
}
