// The compiled GPU spliced in front of a tiny host with Qwen3.5-2B's linear heads and MLP (16 + 16 heads
// of 128, intermediate 6144; hidden 64) through the CLI (`qgpu build`, then `qgpu check-splice`), and the
// combined checkpoint loaded here and by `qgpu chat`: text keeps the host's distribution, and launches (each as its own
// sequence) are predicted record for record, teacher-forced in one prefill through every layer. Writes
// about 5 GB; slow.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <random>

#include "../GpuTestSupport.h"
#include "../HostSpliceSupport.h"
#include "qgpu/runtime/HostSplice.h"
#include "qgpu/runtime/Qwen35Model.h"

using namespace qgpu;
namespace fs = std::filesystem;

TEST(HostSplice2b, TheGpuInFrontOfAHostRunsLaunchesExactlyAndKeepsText) {
    fs::path root = qgpu::testing::tempDir("splice-2b"), host = root / "host", out = root / "combined";
    qgpu::testing::writeHost(host, qgpu::testing::spliceHostConfig(64, 6144, 16), 3);
    std::string cli = QGPU_CLI_PATH;
    std::string build = cli + " build --host " + host.string() + " --out " + out.string() + " --dtype f32";
    ASSERT_EQ(std::system(build.c_str()), 0) << build;
    std::string check = cli + " check-splice --host " + host.string() + " --combined " + out.string() + " --prompt " +
                        "'int main() { return 42; } // the answer'";
    EXPECT_EQ(std::system(check.c_str()), 0) << check;
    // Chat loads the combined checkpoint like any host (its tokenizer has 147,099 more added tokens).
    std::string chat = cli + " chat --host " + out.string() + " --mode text --prompt hi --max-tokens 3";
    EXPECT_EQ(std::system(chat.c_str()), 0) << chat;

    SpliceLayout layout = SpliceLayout::load(out.string());
    auto combined = Qwen35Model::load(out.string()), alone = Qwen35Model::load(host.string());
    std::mt19937 rng(2);
    std::vector<int> text;
    for (int i = 0; i < 64; ++i) text.push_back(int(rng() % 300));
    TextFidelity f = measureTextFidelity(*alone, *combined, layout, text);
    std::printf("text: mean KL %.3g, max KL %.3g, chip mass %.3g, chip logits >= %.3g below\n", f.meanKl, f.maxKl,
                f.maxChipMass, f.minChipGap);
    EXPECT_LE(f.maxKl, 1e-5);
    EXPECT_LE(f.maxChipMass, 1e-30);

    for (const char* name : {"vec_add", "tree_reduce", "shfl_down_reduce", "atomic_counter"}) {
        SCOPED_TRACE(name);
        if (!fs::exists(std::string(QGPU_RESOURCE_DIR) + "/kernels/" + name + ".cu")) {
            ADD_FAILURE() << "no suite kernel " << name;
            continue;
        }
        auto [launch, map, program] = qgpu::testing::loadSuiteKernel(name);
        gpu::ReferenceLaunch ref = gpu::referenceLaunch(program, launch);
        std::vector<gpu::Token> fed = gpu::loadTokens(program, launch.grid, launch.block, ref.initialGlobal);
        CombinedReplay r = replayLaunch(*combined, layout, fed, ref.stream);
        EXPECT_EQ(r.firstMismatch, -1) << "expected " << r.expected << ", the model chose " << r.predicted;
        std::printf("%s: %zu fed, %d records predicted exactly\n", name, fed.size(), r.checked);
    }

    // Chat's launch engine made from the combined checkpoint's own GPU layers runs a launch exactly.
    auto start = std::chrono::steady_clock::now();
    auto gpu = GpuModel::load(out.string());
    std::printf("GpuModel::load: %.1f s\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    auto [launch, map, program] = qgpu::testing::loadSuiteKernel("dot_product");
    gpu::ReferenceLaunch ref = gpu::referenceLaunch(program, launch);
    qgpu::testing::runAgainstReference(*gpu, Engine::Sparse, program, launch, ref);
    fs::remove_all(root);
}

// A host of Qwen3.5-2B's full size (random weights, bf16: 24 layers, hidden 2048, 248,320 tokens) through
// `qgpu build`: the combined checkpoint's shapes, and a peak memory far below the 24 GB machine's, because
// the build streams. (Loading the 11.7 GB result in the fp32 runtime would need about 23 GB; not here.)
TEST(HostSplice2b, AFullSize2bHostBuildsWithinMemory) {
    fs::path root = qgpu::testing::tempDir("splice-full-2b"), host = root / "host", out = root / "combined";
    fs::create_directories(host);
    Qwen35Config config = Qwen35Config::geometry2b();
    Qwen35Model::random(config, 1)->save(host.string(), DType::BF16);
    std::ofstream(host / "tokenizer.json") << text::testing::tokenizerJson(text::testing::TokenizerSpec{}).dump();
    fs::path log = root / "build.log";
    std::string build =
        std::string(QGPU_CLI_PATH) + " build --host " + host.string() + " --out " + out.string() + " > " + log.string();
    ASSERT_EQ(std::system(build.c_str()), 0) << build;
    std::string report = qgpu::testing::readText(log);
    std::printf("%s", report.c_str());
    double peak = std::stod(report.substr(report.find("peak memory ") + 12));
    EXPECT_LT(peak, 12.0) << "GiB";

    SpliceLayout L = SpliceLayout::load(out.string());
    Qwen35Config c = Qwen35Config::load(out.string());
    EXPECT_EQ(c.numLayers, L.circuitLayers + 24);
    EXPECT_EQ(c.hiddenSize, L.width);
    Checkpoint ckpt(out.string());
    EXPECT_EQ(ckpt.find("embed_tokens.weight")->shape,
              (std::vector<int64_t>{config.vocabSize + L.chipTokens, int64_t(L.width)}));
    EXPECT_EQ(ckpt.find("embed_tokens.weight")->dtype, DType::BF16);
    std::string last = "layers." + std::to_string(c.numLayers - 1) + ".mlp.down_proj.weight";
    EXPECT_EQ(ckpt.find(last)->shape, (std::vector<int64_t>{int64_t(L.width), 6144}));
    fs::remove_all(root);
}
