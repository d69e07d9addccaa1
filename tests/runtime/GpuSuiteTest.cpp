// The CUDA kernel suite inside the model: every kernel whose launch the model backend runs today (one
// warp: grid 1, at most 4 threads) is compiled from CUDA, run by the model, and must match the
// interpreter record for record, register for register, word for word, and the spec's expected arrays.
#include <filesystem>

#include "GpuTestSupport.h"
#include "qgpu/compiler/Frontend.h"

using namespace qgpu;
using namespace qgpu::testing;
namespace fs = std::filesystem;

TEST(GpuSuite, EveryOneWarpKernelRunsExactlyInTheModel) {
    fs::path dir = fs::path(QGPU_RESOURCE_DIR) / "kernels";
    int total = 0, run = 0;
    for (const auto& entry : fs::directory_iterator(dir)) {
        if (entry.path().extension() != ".cu") continue;
        ++total;
        fs::path specFile = entry.path();
        specFile.replace_extension(".json");
        LaunchSpec launch = parseLaunchSpec(readFile(specFile), specFile.string());
        SCOPED_TRACE(entry.path().filename().string());
        CompiledKernel k = compileKernel(readFile(entry.path()), entry.path().string(), MachineSpec::standard());
        MachineSpec spec = MachineSpec::standard();
        MemoryMap map = validateLaunch(launch, spec);
        Program program = linkProgram(k.kernel.program, launch, map, spec);
        gpu::ReferenceLaunch ref = gpu::referenceLaunch(program, launch);
        GpuLaunch result;
        try {
            result = gpuModel(Engine::Sparse)
                         .run(program, launch.grid, launch.block, ref.initialGlobal, int(ref.stream.size()) + 8);
        } catch (const DiagnosticError& e) {  // shared memory, barriers, shuffles: step (e)
            std::printf("not in the model yet: %s: %s\n", entry.path().filename().c_str(), e.what());
            continue;
        }
        ASSERT_EQ(gpu::firstMismatch(result.written, ref.stream), -1) << gpu::formatTokens(result.written, 0, 12);
        EXPECT_EQ(result.global, ref.global);
        for (const auto& [name, values] : launch.expect) {
            const ArrayPlacement* array = map.find(name);
            ASSERT_NE(array, nullptr);
            for (int i = 0; i < array->size; ++i)
                EXPECT_EQ(int32_t(result.global[size_t(array->base + i)]), values[size_t(i)])
                    << name << "[" << i << "]";
        }
        ++run;
    }
    std::printf(
        "%d of %d suite kernels run in the model (the others need several warps or thread blocks, shared memory, "
        "barriers or shuffles)\n",
        run, total);
    EXPECT_GE(run, 4);
}
