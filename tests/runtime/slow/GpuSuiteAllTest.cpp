// The whole CUDA kernel suite inside the model (sparse engine): every kernel the model runs must match the
// interpreter record for record, register for register, word for word, and the spec's expected arrays.
#include <filesystem>

#include "../GpuTestSupport.h"

using namespace qgpu;
using namespace qgpu::testing;
namespace fs = std::filesystem;

TEST(GpuSuiteAll, EveryKernelTheModelRunsIsExact) {
    int total = 0, run = 0;
    for (const auto& entry : fs::directory_iterator(fs::path(QGPU_RESOURCE_DIR) / "kernels")) {
        if (entry.path().extension() != ".cu") continue;
        ++total;
        run += expectSuiteKernel(gpuModel(Engine::Sparse), entry.path().stem().string());
    }
    std::printf("%d of %d suite kernels run in the model\n", run, total);
    EXPECT_EQ(run, total);
}
