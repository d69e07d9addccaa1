// The compiled GPU spliced in front of a tiny host with Qwen3.5-2B's linear heads and MLP (16 + 16 heads
// of 128, intermediate 6144; hidden 64) through the CLI (`qgpu build`, then `qgpu check-splice`), and the
// combined checkpoint loaded here and by `qgpu chat`: text keeps the host's distribution, and launches (each as its own
// sequence) are predicted record for record, teacher-forced in one prefill through every layer. `qgpu run
// --gpu` on its GPU layers passes the replay check, and fails it, naming the first differing record and
// state, once a chip row is corrupted (which the tensor checksums refuse first). Writes about 5 GB; slow.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <filesystem>
#include <random>

#include <nlohmann/json.hpp>

#include "../GpuTestSupport.h"
#include "../HostSpliceSupport.h"
#include "qgpu/runtime/CircuitCheckpoint.h"
#include "qgpu/runtime/HostSplice.h"
#include "qgpu/runtime/SpliceCheck.h"
#include "qgpu/runtime/Qwen35Model.h"

using namespace qgpu;
namespace fs = std::filesystem;

namespace {

int chipTokenId(const std::string& text) {
    for (int id = 0; id < gpu::vocabularySize(); ++id)
        if (gpu::Token::fromId(id).text() == text) return id;
    throw std::invalid_argument("no chip token " + text);
}

// Copies row `from` of a 2-D tensor of a safetensors file onto row `to`, in place: a corrupted checkpoint.
// ASSERTs, so it returns void.
void copyRow(const fs::path& file, const std::string& tensor, int64_t from, int64_t to) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    uint64_t headerBytes = 0;
    f.read(reinterpret_cast<char*>(&headerBytes), 8);
    std::string header(headerBytes, '\0');
    f.read(header.data(), std::streamsize(headerBytes));
    nlohmann::json all = nlohmann::json::parse(header), t;  // t: the tensor whose name ends with `tensor`
    for (const auto& [name, value] : all.items())
        if (name.ends_with(tensor)) t = value;
    ASSERT_FALSE(t.is_null()) << "no tensor " << tensor;
    int64_t width = t["shape"][1], element = t["dtype"] == "F32" ? 4 : 2;
    int64_t start = 8 + int64_t(headerBytes) + t["data_offsets"][0].get<int64_t>();
    std::string row(size_t(width * element), '\0');
    f.seekg(start + from * width * element);
    f.read(row.data(), std::streamsize(row.size()));
    f.seekp(start + to * width * element);
    f.write(row.data(), std::streamsize(row.size()));
    ASSERT_TRUE(f.good()) << file;
}

}  // namespace

TEST(HostSplice2b, TheGpuInFrontOfAHostRunsLaunchesExactlyAndKeepsText) {
    fs::path root = qgpu::testing::tempDir("splice-2b"), host = root / "host", out = root / "combined";
    qgpu::testing::writeHost(host, qgpu::testing::spliceHostConfig(64, 6144, 16), 3);
    std::string cli = QGPU_CLI_PATH;
    std::string build = cli + " build --host " + host.string() + " --out " + out.string() + " --dtype f32";
    ASSERT_EQ(std::system(build.c_str()), 0) << build;
    std::string check = cli + " check-splice --host " + host.string() + " --combined " + out.string() + " --prompt " +
                        "'int main() { return 42; } // the answer'";
    EXPECT_EQ(std::system(check.c_str()), 0) << check;
    // Chat loads the combined checkpoint's text model: the host's layers over the host's dims (its tokenizer
    // has 197,227 more added tokens).
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

    // `qgpu run --gpu` runs on the same layers and passes the replay check. With one chip row corrupted (the
    // fed token MEM(3,0x04) given MEM(3,0x05)'s row: b[0] reads 5) the check fails at the first record the
    // model writes differently, prints both streams and the machines decoded at the first differing step.
    std::string examples = std::string(QGPU_RESOURCE_DIR) + "/examples/";
    fs::path log = root / "run.log";
    std::string run = cli + " run " + examples + "dot_product.cu --launch " + examples +
                      "dot_product.json --backend model --check --gpu " + out.string() + " > " + log.string();
    EXPECT_EQ(WEXITSTATUS(std::system(run.c_str())), 0) << run << "\n" << qgpu::testing::readText(log);
    EXPECT_NE(qgpu::testing::readText(log).find("check: ok"), std::string::npos);
    copyRow(out / "model.safetensors", "embed_tokens.weight", layout.hostVocab + chipTokenId("MEM(3,0x05)"),
            layout.hostVocab + chipTokenId("MEM(3,0x04)"));
    // The checksums refuse the changed row before anything runs; written again over the changed weights
    // (a checkpoint made wrong, not damaged), the replay check finds the difference.
    EXPECT_EQ(WEXITSTATUS(std::system((run + " 2>&1").c_str())), 1) << run;
    EXPECT_NE(qgpu::testing::readText(log).find("'embed_tokens.weight' (F32) does not match its checksum"),
              std::string::npos)
        << qgpu::testing::readText(log);
    writeTensorChecksums(out.string());
    EXPECT_EQ(WEXITSTATUS(std::system(run.c_str())), 1) << run;
    std::string report = qgpu::testing::readText(log);
    std::printf("%s", report.substr(report.find("out = ")).c_str());
    for (const char* line : {"out = [33]", "check: the stream differs at record ", "\n  model:       ",
                             "\n  interpreter: ", "check: the decoded machines first differ at step "})
        EXPECT_NE(report.find(line), std::string::npos) << line << "\n" << report;
    fs::remove_all(root);
}

// A host of Qwen3.5-2B's full size (random weights, bf16: 24 layers, hidden 2048, 248,320 tokens) through
// `qgpu build`: the combined checkpoint's shapes, and a peak memory far below the 24 GB machine's, because
// the build streams. (Chat loads the result's text model in bf16 over the host's dims: `qgpu bench-host`.)
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
