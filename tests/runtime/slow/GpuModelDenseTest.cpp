// The GPU inside the model on the dense LibTorch path (the reference engine): 4.5 minutes on 2 cores.
#include "../GpuTestSupport.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

const GpuModel& denseModel() {
    static const auto m = GpuModel::build({Engine::Dense});
    return *m;
}

}  // namespace

TEST(GpuModelDense, OneBlockOfArithmetic) {
    expectExact(denseModel(), Engine::Dense, example("straight_line.qasm"), 3);
}

TEST(GpuModelDense, EveryAluOpcodeAcrossBlocks) {
    expectExact(denseModel(), Engine::Dense, example("every_alu_op.qasm"), 4);
}

TEST(GpuModelDense, DivergenceLoopsAndEarlyExit) {
    expectExact(denseModel(), Engine::Dense, example("branches.qasm"), 4);
}
