// The GPU inside the model, step (a) of issue 6 (one warp, straight-line integer code), on the sparse fast
// path; tests/runtime/slow/GpuModelDenseTest.cpp runs the same launches on the dense path.
#include "GpuTestSupport.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

const GpuModel& sparseModel() {
    static const auto m = GpuModel::build({Engine::Sparse});
    return *m;
}

}  // namespace

TEST(GpuModel, AlphabetRoundTrips) {
    for (int id = 0; id < gpu::vocabularySize(); ++id) ASSERT_EQ(gpu::Token::fromId(id).id(), id);
    EXPECT_THROW(gpu::Token::fromId(gpu::vocabularySize()), std::out_of_range);
}

TEST(GpuModel, OneBlockOfArithmetic) {
    for (int lanes = 1; lanes <= 4; ++lanes)
        expectExact(sparseModel(), Engine::Sparse, example("straight_line.qasm"), lanes);
}

TEST(GpuModel, EveryAluOpcodeAcrossBlocks) {
    expectExact(sparseModel(), Engine::Sparse, example("every_alu_op.qasm"), 4);
}

TEST(GpuModel, DivergenceLoopsAndEarlyExit) {
    for (int lanes = 1; lanes <= 4; ++lanes)
        expectExact(sparseModel(), Engine::Sparse, example("branches.qasm"), lanes);
}

TEST(GpuModel, RejectsWhatItDoesNotRunYet) {
    Program program = assemble("ld.global r1, [r0 + 4]\nexit\n", "load.qasm");
    try {
        sparseModel().run(program, 1);
        FAIL() << "expected a DiagnosticError";
    } catch (const DiagnosticError& e) {
        EXPECT_NE(std::string(e.what()).find("does not run `ld.global` yet"), std::string::npos) << e.what();
    }
}
