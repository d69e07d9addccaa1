// The whole CUDA kernel suite inside the model (sparse engine): every kernel the model runs must match the
// interpreter record for record, register for register, word for word, and the spec's expected arrays.
// And the dense LibTorch path writes the fast path's stream on every kernel.
#include <algorithm>
#include <filesystem>

#include "../GpuTestSupport.h"

using namespace qgpu;
using namespace qgpu::testing;
namespace fs = std::filesystem;

namespace {

std::vector<std::string> suiteKernels() {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(fs::path(QGPU_RESOURCE_DIR) / "kernels"))
        if (entry.path().extension() == ".cu") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

TEST(GpuSuiteAll, EveryKernelTheModelRunsIsExact) {
    int total = 0, run = 0;
    for (const std::string& name : suiteKernels()) {
        ++total;
        run += expectSuiteKernel(gpuModel(Engine::Sparse), name);
    }
    std::printf("%d of %d suite kernels run in the model\n", run, total);
    EXPECT_EQ(run, total);
}

// The fast path's stream, fed whole through the dense path in one prefill: at every position the model
// writes, the dense argmax is the fast path's next token. By induction over the positions, greedy decoding on
// the dense path writes the same stream (decoding runs the recurrent delta rule, the prefill the chunked one;
// the circuit is exact on both, GpuModelDense). One test per kernel, so a filter can pick a few
// (--gtest_filter='*DensePath*float_*').
class TheDensePathWritesTheFastPathsStream : public ::testing::TestWithParam<std::string> {};

TEST_P(TheDensePathWritesTheFastPathsStream, OnTheSuiteKernel) {
    static std::unique_ptr<GpuModel> model =
        GpuModel::build({Engine::Sparse, Engine::Dense}, gpu::defaultMachineGeometry(), DType::F32, makeDenseGpu);
    auto [launch, map, program] = loadSuiteKernel(GetParam());
    std::vector<uint32_t> global = gpu::referenceLaunch(program, launch).initialGlobal;
    GpuLaunch fast = model->run(program, launch.grid, launch.block, global, 100000, Engine::Sparse);
    ASSERT_TRUE(fast.ended);
    std::vector<gpu::Token> stream = fast.fed;
    stream.insert(stream.end(), fast.written.begin(), fast.written.end());
    std::vector<int> dense = model->teacherForced(stream, Engine::Dense);
    for (size_t t = fast.fed.size() - 1; t + 1 < stream.size(); ++t)
        ASSERT_EQ(gpu::Token::fromId(dense[t]).text(), stream[t + 1].text()) << "position " << t;
}

INSTANTIATE_TEST_SUITE_P(GpuSuiteAll, TheDensePathWritesTheFastPathsStream, ::testing::ValuesIn(suiteKernels()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });
