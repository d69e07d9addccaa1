// Circuit primitives proven exact by running the emitted stock Qwen3.5 layers through Qwen35Model:
// exhaustive over their inputs, every other residual dimension bit-identical, and silence on text.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <random>

#include "qgpu/compiler/circuit/Circuit.h"
#include "qgpu/runtime/CircuitCheckpoint.h"
#include "qgpu/runtime/Qwen35Model.h"
#include "CircuitTestSupport.h"

using namespace qgpu;
using namespace qgpu::testing;
using circuit::Circuit;
namespace fs = std::filesystem;

namespace {

void expectOnly(const std::vector<float>& before, const std::vector<float>& after, const std::vector<int>& changed,
                const std::string& what) {
    for (size_t d = 0; d < before.size(); ++d) {
        if (std::find(changed.begin(), changed.end(), int(d)) != changed.end()) {
            EXPECT_TRUE(after[d] == 1.0f || after[d] == -1.0f) << what << ": dim " << d << " = " << after[d];
        } else {
            EXPECT_EQ(after[d], before[d]) << what << ": dim " << d << " must be untouched";
        }
    }
}

}  // namespace

TEST(CircuitGadgets, BooleanGatesExhaustive) {
    Circuit c({});
    int a = c.addFeature("a"), b = c.addFeature("b");
    int andOut = c.addFeature("and"), orOut = c.addFeature("or"), notOut = c.addFeature("not"),
        xorOut = c.addFeature("xor");
    int l = c.addLayer();
    c.andGate(l, a, b, andOut);
    c.orGate(l, a, b, orOut);
    c.notGate(l, a, notOut);
    c.xorGate(l, a, b, xorOut);
    auto rows = assignments(c, {a, b});
    auto out = run(c, rows);
    for (int v = 0; v < 4; ++v) {
        bool ta = v & 1, tb = v >> 1 & 1;
        std::string what = "a=" + std::to_string(ta) + " b=" + std::to_string(tb);
        EXPECT_EQ(truth(out[size_t(v)][size_t(andOut)]), ta && tb) << what;
        EXPECT_EQ(truth(out[size_t(v)][size_t(orOut)]), ta || tb) << what;
        EXPECT_EQ(truth(out[size_t(v)][size_t(notOut)]), !ta) << what;
        EXPECT_EQ(truth(out[size_t(v)][size_t(xorOut)]), ta != tb) << what;
        expectOnly(rows[size_t(v)], out[size_t(v)], {andOut, orOut, notOut, xorOut}, what);
    }
}

TEST(CircuitGadgets, ThresholdsOverFiveInputsExhaustive) {
    Circuit c({});
    std::vector<int> in;
    for (int i = 0; i < 5; ++i) in.push_back(c.addFeature("x" + std::to_string(i)));
    int atLeast3 = c.addFeature("ge3"), weighted = c.addFeature("weighted");
    int l = c.addLayer();
    c.threshold(l, {{in[0], 1}, {in[1], 1}, {in[2], 1}, {in[3], 1}, {in[4], 1}}, -3, atLeast3);
    c.threshold(l, {{in[0], 4}, {in[1], -3}, {in[2], 2}, {in[3], 1}, {in[4], -1}}, -2, weighted);
    auto rows = assignments(c, in);
    auto out = run(c, rows);
    for (int v = 0; v < 32; ++v) {
        int count = __builtin_popcount(unsigned(v));
        int w = 4 * (v & 1) - 3 * (v >> 1 & 1) + 2 * (v >> 2 & 1) + (v >> 3 & 1) - (v >> 4 & 1);
        EXPECT_EQ(truth(out[size_t(v)][size_t(atLeast3)]), count >= 3) << v;
        EXPECT_EQ(truth(out[size_t(v)][size_t(weighted)]), w - 2 >= 0) << v;
    }
}

TEST(CircuitGadgets, AddressDecodeToOneHotExhaustive) {
    Circuit c({});
    std::vector<int> bits, outs;
    for (int i = 0; i < 3; ++i) bits.push_back(c.addFeature("addr" + std::to_string(i)));
    for (int v = 0; v < 8; ++v) outs.push_back(c.addFeature("row" + std::to_string(v)));
    c.decode(c.addLayer(), bits, outs);
    auto rows = assignments(c, bits);
    auto out = run(c, rows);
    for (int v = 0; v < 8; ++v) {
        for (int r = 0; r < 8; ++r)
            EXPECT_EQ(truth(out[size_t(v)][size_t(outs[size_t(r)])]), r == v) << v << " row " << r;
        expectOnly(rows[size_t(v)], out[size_t(v)], outs, "address " + std::to_string(v));
    }
}

TEST(CircuitGadgets, LayersComposeBecauseEveryNormSeesTheResidualExactly) {
    Circuit c({});
    int a = c.addFeature("a"), b = c.addFeature("b"), d = c.addFeature("d");
    int ab = c.addFeature("a&b"), res = c.addFeature("(a&b)^d"), both = c.addFeature("res|a");
    c.andGate(c.addLayer(), a, b, ab);
    c.xorGate(c.addLayer(), ab, d, res);
    c.orGate(c.addLayer(), res, a, both);
    auto out = run(c, assignments(c, {a, b, d}));
    for (int v = 0; v < 8; ++v) {
        bool ta = v & 1, tb = v >> 1 & 1, td = v >> 2 & 1, r = (ta && tb) != td;
        EXPECT_EQ(truth(out[size_t(v)][size_t(res)]), r) << v;
        EXPECT_EQ(truth(out[size_t(v)][size_t(both)]), r || ta) << v;
    }
}

TEST(CircuitGadgets, SilentOnTextTokens) {
    // Text tokens: zero on the constant and every feature dimension, arbitrary elsewhere. Interleaved
    // with circuit tokens, each must leave the compiled layers with its embedding unchanged, bit for bit.
    Circuit c({});
    int a = c.addFeature("a"), b = c.addFeature("b"), o = c.addFeature("o");
    int l = c.addLayer();
    c.xorGate(l, a, b, o);
    c.andGate(c.addLayer(), a, o, c.addFeature("p"));
    auto rows = assignments(c, {a, b});
    std::mt19937 rng(1);
    std::normal_distribution<float> dist(0.f, 2.f);
    for (int t = 0; t < 40; ++t) {
        std::vector<float> text(size_t(c.geometry().hiddenSize), 0.f);
        for (size_t d = size_t(c.dimsUsed()); d < text.size(); ++d) text[d] = dist(rng);
        rows.push_back(text);
    }
    fs::path dir = tempDir("silent");
    writeCircuitCheckpoint(dir.string(), c, rows);
    auto model = Qwen35Model::load(dir.string());
    ModelState state = model->newState();
    std::uniform_int_distribution<int> pick(0, int(rows.size()) - 1);
    for (int step = 0; step < 200; ++step) {
        int tok = pick(rng);
        auto out = model->hiddenStates({tok}, state);
        if (tok >= 4) {
            EXPECT_EQ(out, rows[size_t(tok)]) << "text token " << tok << " at step " << step;
        }
    }
    for (int layer = 0; layer < 2; ++layer)
        for (float v : state.recurrentState(layer)) ASSERT_EQ(v, 0.f) << "the silent mixers never write";
    fs::remove_all(dir);
}

// What transformers needs of a circuit checkpoint: a full-attention layer (its cache asks one for the
// sequence length), here one of zero weights at the end, and fp32 activations even for bf16 weights.
TEST(CircuitGadgets, ACheckpointEndsWithAZeroAttentionLayerAndAsksForFp32) {
    Circuit c({});
    int a = c.addFeature("a"), b = c.addFeature("b"), o = c.addFeature("o");
    c.xorGate(c.addLayer(), a, b, o);
    fs::path dir = tempDir("passthrough");
    writeCircuitCheckpoint(dir.string(), c, assignments(c, {a, b}), DType::BF16);
    Qwen35Config config = Qwen35Config::load(dir.string());
    EXPECT_EQ(config.computeDtype, "float32");
    ASSERT_EQ(config.numLayers, c.layerCount() + 1);
    EXPECT_EQ(config.layerTypes.back(), LayerType::FullAttention);
    Checkpoint checkpoint(dir.string());
    std::string last = "layers." + std::to_string(c.layerCount()) + ".";
    for (const char* name : {"self_attn.o_proj.weight", "mlp.down_proj.weight"}) {
        const TensorView* t = checkpoint.find(last + name);
        ASSERT_NE(t, nullptr) << name;
        for (float v : t->toFloat()) ASSERT_EQ(v, 0.f) << name;
    }
    fs::remove_all(dir);
}

TEST(CircuitGadgets, Bfloat16WeightsAreExactToo) {
    Circuit c({});
    int a = c.addFeature("a"), b = c.addFeature("b"), x = c.addFeature("xor");
    std::vector<int> bits, outs;
    for (int i = 0; i < 3; ++i) bits.push_back(c.addFeature("bit" + std::to_string(i)));
    for (int v = 0; v < 8; ++v) outs.push_back(c.addFeature("one" + std::to_string(v)));
    int l = c.addLayer();
    c.xorGate(l, a, b, x);
    c.decode(l, bits, outs);
    std::vector<int> inputs{a, b, bits[0], bits[1], bits[2]};
    auto rows = assignments(c, inputs);
    auto f32 = run(c, rows, DType::F32), bf16 = run(c, rows, DType::BF16);
    EXPECT_EQ(f32, bf16) << "gadget weights are small integers times powers of two: bf16 holds them exactly";
}

TEST(CircuitGadgets, IntegerFeaturesMaskedProductsAndClearingForReuse) {
    // Integers ride beside the bits: the huge ballast keeps every RMSNorm exact whatever they hold.
    Circuit c({});
    int t = c.addFeature("t"), x = c.addInteger("x"), y = c.addInteger("y"), prod = c.addInteger("t*x");
    int copy = c.addInteger("x+2y"), flag = c.addFeature("flag");
    int l0 = c.addLayer(), l1 = c.addLayer();
    c.maskedProduct(l0, t, c.value(x), {{prod, 1.f}});
    c.linear(l0, c.value(x).add(c.value(y), 2), {{copy, 1.f}});
    c.notGate(l0, t, flag);
    c.clear(l1, prod);  // back to 0: the slot may take a new value
    c.clear(l1, flag);  // back to +1 (false)
    std::vector<std::vector<float>> rows;
    std::vector<std::tuple<bool, int, int>> cases;
    for (bool bit : {false, true})
        for (int xv : {0, 1, -7, 65535, 1 << 20})
            for (int yv : {0, 3, -100000}) {
                cases.push_back({bit, xv, yv});
                rows.push_back(
                    c.tokenEmbedding(bit ? std::vector<int>{t} : std::vector<int>{}, {{x, float(xv)}, {y, float(yv)}}));
            }
    auto out = run(c, rows);
    for (size_t k = 0; k < cases.size(); ++k) {
        auto [bit, xv, yv] = cases[k];
        EXPECT_EQ(out[k][size_t(copy)], float(xv + 2 * yv));
        EXPECT_EQ(out[k][size_t(prod)], 0.f) << "cleared";
        EXPECT_EQ(out[k][size_t(flag)], 1.f) << "cleared";
        EXPECT_EQ(out[k][size_t(x)], float(xv));
    }
    // the product itself, one layer earlier
    Circuit d({});
    int dt = d.addFeature("t"), dx = d.addInteger("x"), dp = d.addInteger("p");
    d.maskedProduct(d.addLayer(), dt, d.value(dx), {{dp, -3.f}});
    auto r = run(d, {d.tokenEmbedding({dt}, {{dx, 4097.f}}), d.tokenEmbedding({}, {{dx, 4097.f}})});
    EXPECT_EQ(r[0][size_t(dp)], -3.f * 4097.f);
    EXPECT_EQ(r[1][size_t(dp)], 0.f);
}

TEST(CircuitGadgets, RejectsMisusedFeatures) {
    Circuit c({});
    int bit = c.addFeature("bit"), n = c.addInteger("n");
    EXPECT_THROW(c.truth(n), std::invalid_argument);
    EXPECT_THROW(c.value(bit), std::invalid_argument);
    EXPECT_THROW(c.addFeature("bit"), std::invalid_argument) << "names are unique";
    EXPECT_THROW(c.featureAt(0), std::invalid_argument) << "dim 0 is the constant";
    EXPECT_THROW(c.tokenEmbedding({n}), std::invalid_argument);
    Circuit tiny({});
    EXPECT_THROW(
        {
            for (int i = 0; i < 64; ++i) tiny.addFeature("f" + std::to_string(i));
        },
        std::length_error);
}

TEST(CircuitLayout, NamesEveryFeatureAndEveryStateRange) {
    circuit::Geometry g;
    g.hiddenSize = 128;
    g.linearNumKeyHeads = g.linearNumValueHeads = 1;
    g.linearKeyHeadDim = 4;
    g.linearValueHeadDim = 8;
    Circuit c(g);
    circuit::MemoryPort port;
    port.name = "regs";
    for (int r = 0; r < 4; ++r) port.writeRows.push_back(c.addFeature("w" + std::to_string(r)));
    for (int i = 0; i < 2; ++i) port.dataBits.push_back(c.addFeature("d" + std::to_string(i)));
    for (int i = 0; i < 2; ++i) port.outBits.push_back(c.addReadBit("o" + std::to_string(i)));
    int n = c.addInteger("count");
    c.memoryPort(c.addLayer(), port);
    auto layout = nlohmann::json::parse(c.layoutJson());
    EXPECT_EQ(layout["format"], "qgpu-circuit-layout");
    ASSERT_EQ(layout["features"].size(), c.features().size());
    EXPECT_EQ(layout["features"][8]["name"], "count");
    EXPECT_EQ(layout["features"][8]["dim"], n);
    EXPECT_EQ(layout["features"][8]["encoding"], "integer");
    EXPECT_EQ(layout["features"][6]["encoding"], "read_bit");
    EXPECT_EQ(layout["features"][6]["base"], 64);
    EXPECT_EQ(layout["ballast"]["dims"], nlohmann::json(c.ballastDims()));
    const auto& p = layout["layers"][0]["ports"][0];
    EXPECT_EQ(p["name"], "regs");
    EXPECT_EQ(p["state_rows"][3], "regs[3]");
    EXPECT_EQ(p["data"][1], "d1");
    EXPECT_EQ(p["out"][0], "o0");

    fs::path dir = tempDir("layout");
    writeCircuitCheckpoint(dir.string(), c, {c.tokenEmbedding({})});
    std::ifstream file(dir / kCircuitLayoutFile);
    EXPECT_EQ(nlohmann::json::parse(file), layout) << "the checkpoint carries its layout file";
    fs::remove_all(dir);
}
