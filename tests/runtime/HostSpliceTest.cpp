// The host splice on a small chip (a memory port and an XOR) in front of a tiny random host: the combined
// checkpoint's shape, text fidelity (KL against the host alone), the chip's residual bit for bit against
// the chip alone, and the error paths. The compiled GPU in front of a host runs under `slow`
// (HostSplice2bTest.cpp).
#include "qgpu/runtime/HostSplice.h"
#include "qgpu/runtime/SpliceCheck.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include "../text/TextTestUtil.h"
#include "HostSpliceSupport.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/CircuitCheckpoint.h"
#include "qgpu/runtime/Qwen35Model.h"
#include "qgpu/runtime/text/Tokenizer.h"

using namespace qgpu;
namespace fs = std::filesystem;

namespace {

// A chip of 256 tokens (w, v, r): write v to row w of a 4-row memory, read row r; then x := o0 XOR o1.
struct PortChip {
    circuit::MemoryPort port;
    int x = -1;
};

PortChip portLayout(circuit::Circuit& c) {
    PortChip p;
    p.port.name = "mem";
    for (int r = 0; r < 4; ++r) p.port.writeRows.push_back(c.addFeature("w" + std::to_string(r)));
    for (int r = 0; r < 4; ++r) p.port.readRows.push_back(c.addFeature("r" + std::to_string(r)));
    for (int i = 0; i < 32; ++i) p.port.dataBits.push_back(c.addFeature("d" + std::to_string(i)));
    for (int i = 0; i < 32; ++i) p.port.outBits.push_back(c.addReadBit("o" + std::to_string(i)));
    c.memoryPort(c.addLayer(), p.port);
    int layer = c.addLayer();
    p.x = c.addFeature("x", layer);
    c.xorGate(layer, p.port.outBits[0], p.port.outBits[1], p.x);
    return p;
}

int chipToken(int w, int v, int r) { return w * 64 + v * 4 + r; }

ChipSource portChip() {
    ChipSource s;
    s.probeWidth = 256;
    s.build = [](const circuit::Geometry& g) {
        ChipModel chip{circuit::Circuit(g), {}, {}};
        PortChip p = portLayout(chip.circuit);
        for (int w = 0; w < 4; ++w)
            for (int v = 0; v < 16; ++v)
                for (int r = 0; r < 4; ++r) {
                    std::vector<int> trueDims = {p.port.writeRows[size_t(w)], p.port.readRows[size_t(r)]};
                    for (int i = 0; i < 4; ++i)
                        if (v >> i & 1) trueDims.push_back(p.port.dataBits[size_t(i)]);
                    chip.embeddings.addRow(chip.circuit.tokenEmbedding(trueDims));
                    chip.tokenTexts.push_back("<|chip:w" + std::to_string(w) + ",v" + std::to_string(v) + ",r" +
                                              std::to_string(r) + "|>");
                }
        return chip;
    };
    return s;
}

Qwen35Config hostConfig() {
    Qwen35Config c = qgpu::testing::spliceHostConfig(32, 64, 1);
    c.vocabSize = 300;
    return c;
}

struct Spliced {
    fs::path root, host, out;
    SpliceLayout layout;
};

// The tiny host and the combined checkpoint, made once for the tests that only read them.
const Spliced& spliced() {
    static const Spliced s = [] {
        Spliced s;
        s.root = qgpu::testing::tempDir("splice");
        s.host = s.root / "host";
        s.out = s.root / "combined";
        qgpu::testing::writeHost(s.host, hostConfig(), 7);
        s.layout = spliceHost(s.host.string(), s.out.string(), portChip());
        return s;
    }();
    return s;
}

}  // namespace

TEST(HostSplice, TheWidthHoldsCircuitHostAndFlagBelowTheBallast) {
    for (auto [c, h] : std::vector<std::pair<int, int>>{{180, 32}, {1900, 64}, {1900, 2048}, {5, 5}}) {
        int H = splicedWidth(c, h), ballast = H;
        while (ballast % 4 == 0) ballast /= 4;
        EXPECT_LE(c + h + 1 + ballast, H) << c << " + " << h;
        for (int smaller = c + h + 2; smaller < H; ++smaller) {
            int b = smaller;
            while (b % 4 == 0) b /= 4;
            EXPECT_GT(c + h + 1 + b, smaller) << "a narrower width " << smaller << " fits " << c << " + " << h;
        }
    }
    EXPECT_EQ(splicedWidth(1900, 2048) % 64, 0);
}

TEST(HostSplice, TheCombinedCheckpointIsStockQwen35WithChipTokensAfterTheHosts) {
    const Spliced& s = spliced();
    Qwen35Config host = hostConfig(), c = Qwen35Config::load(s.out.string());
    const SpliceLayout& L = s.layout;
    EXPECT_EQ(c.hiddenSize, L.width);
    EXPECT_EQ(L.flagDim, L.circuitDims + host.hiddenSize);
    EXPECT_EQ(L.circuitLayers, 2);
    EXPECT_EQ(c.numLayers, 2 + host.numLayers);
    std::vector<LayerType> types = {LayerType::LinearAttention, LayerType::LinearAttention};
    types.insert(types.end(), host.layerTypes.begin(), host.layerTypes.end());
    EXPECT_EQ(c.layerTypes, types);
    EXPECT_EQ(c.vocabSize, 300 + 256);
    EXPECT_EQ(c.rmsNormEps, host.rmsNormEps);  // the per-head norms stay bit-identical
    EXPECT_EQ(SpliceLayout::load(s.out.string()).toJson(), L.toJson());
    EXPECT_TRUE(fs::exists(s.out / kCircuitLayoutFile));
    for (const auto& entry : fs::directory_iterator(s.out.parent_path()))  // no temporary or lock beside it
        EXPECT_EQ(entry.path().string().rfind(s.out.string() + ".", 0), std::string::npos) << entry.path();

    // The tokenizer: the host's tokens as they were, each chip token whole at its id.
    auto tok = text::Tokenizer::fromJson(qgpu::testing::readText(s.out / "tokenizer.json"));
    EXPECT_EQ(tok.tokenId("<|chip:w1,v5,r2|>"), 300 + chipToken(1, 5, 2));
    EXPECT_EQ(tok.encode("ab <|chip:w3,v15,r3|>"), (std::vector<int>{'a', 'b', ' ', 300 + chipToken(3, 15, 3)}));

    // Residual norms stay F32 in any dtype; the rest is the host's dtype.
    Checkpoint ckpt(s.out.string());
    EXPECT_EQ(ckpt.find("layers.2.input_layernorm.weight")->dtype, DType::F32);
    EXPECT_EQ(ckpt.find("layers.3.mlp.up_proj.weight")->shape, (std::vector<int64_t>{64, L.width}));
    EXPECT_EQ(ckpt.find("layers.3.mlp.down_proj.weight")->shape, (std::vector<int64_t>{L.width, 64}));
}

TEST(HostSplice, TextKeepsTheHostsDistributionAndChipTokensGetNoMass) {
    const Spliced& s = spliced();
    auto host = Qwen35Model::load(s.host.string()), combined = Qwen35Model::load(s.out.string());
    std::mt19937 rng(11);
    std::vector<int> text;
    for (int i = 0; i < 96; ++i) text.push_back(int(rng() % 300));
    TextFidelity f = measureTextFidelity(*host, *combined, s.layout, text);
    std::cout << "text fidelity over " << f.positions << " positions: mean KL " << f.meanKl << ", max KL " << f.maxKl
              << ", max chip mass " << f.maxChipMass << ", chip logits at least " << f.minChipGap
              << " below the best text logit\n";
    EXPECT_LE(f.maxKl, 1e-5);
    EXPECT_LE(f.maxChipMass, 1e-30);
    EXPECT_GE(f.minChipGap, 100);

    // The KL above is worth something only if the host is far from uniform: its greedy token is likely,
    ModelState state = host->newState();
    std::vector<float> logits = host->forward(text, state, true);
    double meanTop = 0;
    for (size_t t = 0; t < text.size(); ++t) {
        const float* row = logits.data() + t * 300;
        double m = *std::max_element(row, row + 300), z = 0;
        for (int i = 0; i < 300; ++i) z += std::exp(double(row[i]) - m);
        meanTop += 1 / z / double(text.size());
    }
    std::cout << "the host's mean top-token probability: " << meanTop << "\n";
    EXPECT_GT(meanTop, 0.2);
    EXPECT_LT(meanTop, 0.9);  // nor so sharp that every distribution is one token
}

// Chat runs a combined checkpoint's text on the host's layers alone, over the host's dims: it must give
// the full-width combined model's logits on text (up to the order of float sums) and refuse chip tokens.
TEST(HostSplice, TheTextModelOfACombinedCheckpointIsTheFullWidthModelOverTheHostsDims) {
    const Spliced& s = spliced();
    for (DType dtype : {DType::F32, DType::BF16}) {
        fs::path out = s.out;
        if (dtype == DType::BF16) {
            out = s.root / "text-only-bf16";
            if (!fs::exists(out)) spliceHost(s.host.string(), out.string(), portChip(), {DType::BF16, {}});
        }
        auto combined = Qwen35Model::load(out.string());
        ModelLoadOptions textOnly;
        textOnly.textOnly = true;
        auto text = Qwen35Model::load(out.string(), textOnly);
        EXPECT_EQ(text->config().hiddenSize, s.layout.hostWidth);
        EXPECT_EQ(text->config().numLayers, s.layout.hostLayers);
        EXPECT_EQ(text->config().vocabSize, s.layout.hostVocab);
        std::mt19937 rng(5);
        std::vector<int> tokens;
        for (int i = 0; i < 80; ++i) tokens.push_back(int(rng() % 300));
        ModelState a = combined->newState(), b = text->newState();
        std::vector<float> wide = combined->forward(tokens, a, true), narrow = text->forward(tokens, b, true);
        size_t V = size_t(combined->config().vocabSize), v = size_t(s.layout.hostVocab);
        ASSERT_EQ(narrow.size(), tokens.size() * v);
        float worst = 0, range = 0;
        for (size_t t = 0; t < tokens.size(); ++t) {
            const float *w = wide.data() + t * V, *n = narrow.data() + t * v;
            EXPECT_EQ(std::max_element(w, w + v) - w, std::max_element(n, n + v) - n) << "position " << t;
            for (size_t i = 0; i < v; ++i) {
                worst = std::max(worst, std::abs(w[i] - n[i]));
                range = std::max(range, std::abs(w[i]));
            }
        }
        std::cout << dtypeName(dtype) << ": the host's dims alone vs the full width: max logit difference " << worst
                  << " (largest logit " << range << ")\n";
        EXPECT_LE(worst, 1e-5f * range);
        std::string err = text::testing::errorOf([&] { text->forward({s.layout.hostVocab}, b); });
        EXPECT_NE(err.find("outside the vocabulary of 300"), std::string::npos) << err;
    }
}

TEST(HostSplice, ABfloat16HostGivesABfloat16CheckpointWithF32ResidualNorms) {
    const Spliced& s = spliced();
    fs::path host = s.root / "bf16-host", out = s.root / "bf16-combined";
    qgpu::testing::writeHost(host, hostConfig(), 7, DType::BF16);
    SpliceLayout layout = spliceHost(host.string(), out.string(), portChip());
    Checkpoint ckpt(out.string());
    EXPECT_EQ(ckpt.find("embed_tokens.weight")->dtype, DType::BF16);
    EXPECT_EQ(ckpt.find("layers.0.mlp.up_proj.weight")->dtype, DType::BF16);
    EXPECT_EQ(ckpt.find("layers.3.linear_attn.in_proj_qkv.weight")->dtype, DType::BF16);
    EXPECT_EQ(ckpt.find("layers.3.input_layernorm.weight")->dtype, DType::F32);
    EXPECT_EQ(ckpt.find("norm.weight")->dtype, DType::F32);
    auto alone = Qwen35Model::load(host.string()), combined = Qwen35Model::load(out.string());
    std::vector<int> text;
    for (int i = 0; i < 64; ++i) text.push_back((i * 37 + 11) % 300);
    TextFidelity f = measureTextFidelity(*alone, *combined, layout, text);
    std::cout << "bf16: mean KL " << f.meanKl << ", max KL " << f.maxKl << "\n";
    EXPECT_LE(f.maxKl, 1e-5);
}

TEST(HostSplice, ChipTokensRunTheCircuitBitForBitAndLeaveTheHostDimsZero) {
    const Spliced& s = spliced();
    const SpliceLayout& L = s.layout;
    // The chip alone at the same width, as its own checkpoint.
    circuit::Geometry g = circuitGeometry(hostConfig());
    g.hiddenSize = L.width;
    ChipModel chip = portChip().build(g);
    fs::path aloneDir = s.root / "alone";
    fs::create_directories(aloneDir);
    writeCircuitCheckpoint(aloneDir.string(), chip.circuit, chip.embeddings.dense());
    auto alone = Qwen35Model::load(aloneDir.string()), combined = Qwen35Model::load(s.out.string());

    std::mt19937 rng(5);
    std::vector<int> ids, offset;
    std::vector<uint32_t> memory(4, 0), expectedReads;
    for (int t = 0; t < 48; ++t) {
        int w = int(rng() % 4), v = int(rng() % 16), r = int(rng() % 4);
        ids.push_back(chipToken(w, v, r));
        offset.push_back(L.hostVocab + ids.back());
        memory[size_t(w)] = uint32_t(v);
        expectedReads.push_back(memory[size_t(r)]);  // a read sees the same token's write
    }
    ModelState a = alone->newState(), c = combined->newState();
    std::vector<float> ha = alone->hiddenStates(ids, a), hc = combined->hiddenStates(offset, c);
    size_t H = size_t(L.width);
    PortChip p = portLayout(chip.circuit = circuit::Circuit(g));
    for (size_t t = 0; t < ids.size(); ++t) {
        for (size_t d = 0; d < H; ++d) {
            bool hostDim = d >= size_t(L.hostOffset()) && d < size_t(L.flagDim);
            float want = hostDim ? 0.f : d == size_t(L.flagDim) ? L.chipFlag : ha[t * H + d];
            ASSERT_EQ(hc[t * H + d], want) << "token " << t << " dim " << d;
        }
        uint32_t read = 0;
        for (int i = 0; i < 4; ++i) read |= uint32_t(hc[t * H + size_t(p.port.outBits[size_t(i)])] == 62.f) << i;
        EXPECT_EQ(read, expectedReads[t]) << "token " << t;
        bool x = hc[t * H + size_t(p.x)] == -1.f;
        EXPECT_EQ(x, bool((read ^ (read >> 1)) & 1)) << "token " << t;
    }
}

TEST(HostSplice, BadHostsAndOutputsAreRefusedWithNothingLeftBehind) {
    const Spliced& s = spliced();
    fs::path dir = s.root / "errors";
    fs::create_directories(dir);
    auto refused = [&](const fs::path& host, const fs::path& out, const std::string& expect) {
        std::string err = text::testing::errorOf([&] { spliceHost(host.string(), out.string(), portChip()); });
        EXPECT_NE(err.find(expect), std::string::npos) << err;
        for (const auto& entry : fs::directory_iterator(out.parent_path()))  // no temporary or lock beside it
            EXPECT_EQ(entry.path().string().rfind(out.string() + ".", 0), std::string::npos) << entry.path();
    };
    refused(s.host, s.out, s.out.string() + ": error: already exists");
    EXPECT_TRUE(fs::exists(s.out / "model.safetensors"));  // untouched
    refused(dir / "nothing", dir / "o1", "is not a directory");
    EXPECT_FALSE(fs::exists(dir / "o1"));

    fs::path noTokenizer = dir / "no-tokenizer";
    qgpu::testing::writeHost(noTokenizer, hostConfig(), 7);
    fs::remove(noTokenizer / "tokenizer.json");
    refused(noTokenizer, dir / "o2", "tokenizer.json: error: not found");
    EXPECT_FALSE(fs::exists(dir / "o2"));

    fs::path leaky = dir / "leaky";  // a link out of the host's folder is never copied into the combined one
    qgpu::testing::writeHost(leaky, hostConfig(), 7);
    fs::create_symlink("/etc/hostname", leaky / "notes.txt");
    refused(leaky, dir / "o4", "notes.txt: error: leads outside the checkpoint's folder");
    EXPECT_FALSE(fs::exists(dir / "o4"));

    fs::path corrupt = dir / "corrupt";
    qgpu::testing::writeHost(corrupt, hostConfig(), 7);
    std::string weights = qgpu::testing::readText(corrupt / "model.safetensors");
    std::ofstream(corrupt / "model.safetensors", std::ios::binary) << weights.substr(0, weights.size() / 2);
    refused(corrupt, dir / "o3", "model.safetensors");
    EXPECT_FALSE(fs::exists(dir / "o3"));

    fs::path narrow = dir / "narrow-heads";  // linear heads of 16: the chip's 128-row memory cannot fit
    Qwen35Config c = qgpu::testing::spliceHostConfig(32, 64, 1);
    c.vocabSize = 300;
    c.linearKeyHeadDim = c.linearValueHeadDim = 16;
    qgpu::testing::writeHost(narrow, c, 7);
    refused(narrow, dir / "o4", "cannot hold the circuit");
    EXPECT_FALSE(fs::exists(dir / "o4"));
}

TEST(SafetensorsWriter, StreamsTensorsInChunksAndLeavesNothingWhenAbandoned) {
    fs::path dir = qgpu::testing::tempDir("writer");
    std::vector<float> a = {1, 2, 3, 4, 5, 6}, b = {7, 8};
    {
        SafetensorsWriter w((dir / "x.safetensors").string(), {{"a", DType::F32, {2, 3}}, {"b", DType::BF16, {2}}});
        w.write(encodeFloats(a.data(), 4, DType::F32));
        w.write(encodeFloats(a.data() + 4, 2, DType::F32));
        EXPECT_FALSE(fs::exists(dir / "x.safetensors"));
        w.write(encodeFloats(b.data(), 2, DType::BF16));
        w.finish();
    }
    SafetensorsFile f((dir / "x.safetensors").string());
    EXPECT_EQ(f.find("a")->toFloat(), a);
    EXPECT_EQ(f.find("b")->toFloat(), b);
    EXPECT_EQ(f.find("a")->rows(1, 1).toFloat(), (std::vector<float>{4, 5, 6}));
    EXPECT_THROW(f.find("a")->rows(1, 2), std::out_of_range);
    {
        SafetensorsWriter w((dir / "y.safetensors").string(), {{"a", DType::F32, {2}}});
        EXPECT_THROW(w.write(encodeFloats(a.data(), 3, DType::F32)), std::logic_error);
        EXPECT_THROW(w.finish(), std::logic_error);  // 0 of 8 bytes
    }
    EXPECT_FALSE(fs::exists(dir / "y.safetensors"));
    EXPECT_FALSE(fs::exists(dir / "y.safetensors.tmp"));
    fs::remove_all(dir);
}
