// Golden files per stage for suite kernels: CUDA -> PTX (resources/kernels/NAME.cu -> golden/NAME.ptx) and
// PTX -> machine blocks (NAME.ptx -> NAME.blocks). Set QGPU_UPDATE_GOLDEN=1 to rewrite them after an
// intended change, then review the diff.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "qgpu/core/Files.h"
#include "qgpu/compiler/CudaCompiler.h"
#include "qgpu/compiler/Frontend.h"
#include "qgpu/compiler/Lowering.h"
#include "qgpu/compiler/Ptx.h"

using namespace qgpu;
namespace fs = std::filesystem;

namespace {

const fs::path kGolden = fs::path(QGPU_SOURCE_DIR) / "tests/compiler/golden";
const fs::path kKernels = fs::path(QGPU_SOURCE_DIR) / "resources/kernels";

// Compares with the golden file, or rewrites it when asked to.
void expectGolden(const fs::path& file, const std::string& actual) {
    if (std::getenv("QGPU_UPDATE_GOLDEN")) {
        std::ofstream(file, std::ios::binary) << actual;
        return;
    }
    ASSERT_TRUE(fs::exists(file)) << file << " is missing; run with QGPU_UPDATE_GOLDEN=1 to create it";
    EXPECT_EQ(readFile(file), actual) << "stage output differs from " << file;
}

std::vector<std::string> goldenKernels() {
    std::vector<std::string> names;
    for (const auto& e : fs::directory_iterator(kGolden))
        if (e.path().extension() == ".ptx") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

}  // namespace

TEST(Golden, CudaToPtx) {
    for (const auto& name : goldenKernels()) {
        SCOPED_TRACE(name);
        CudaCompileResult r = compileCudaToPtx(readFile(kKernels / (name + ".cu")), name + ".cu");
        ASSERT_TRUE(r.ok) << formatAll(r.diagnostics);
        expectGolden(kGolden / (name + ".ptx"), r.ptx);
    }
}

TEST(Golden, PtxToBlocks) {
    for (const auto& name : goldenKernels()) {
        SCOPED_TRACE(name);
        std::string source = readFile(kKernels / (name + ".cu"));
        ptx::Module m = ptx::parse(readFile(kGolden / (name + ".ptx")), name + ".ptx");
        LoweredKernel k = lowerKernel(m, kernelParameterNames(source), name + ".cu");
        expectGolden(kGolden / (name + ".blocks"), formatLowered(k));
    }
}

TEST(Golden, EveryKernelHasBothStages) {
    auto names = goldenKernels();
    EXPECT_GE(names.size(), 8u);
    for (const auto& name : names) {
        EXPECT_TRUE(fs::exists(kKernels / (name + ".cu"))) << name;
        EXPECT_TRUE(fs::exists(kGolden / (name + ".blocks"))) << name;
    }
}
