// Circuit primitives proven exact by running the emitted stock Qwen3.5 layers through Qwen35Model:
// exhaustive over their inputs, every other residual dimension bit-identical, and silence on text.
#include <gtest/gtest.h>

#include <filesystem>
#include <random>

#include "qgpu/compiler/circuit/Circuit.h"
#include "qgpu/runtime/CircuitCheckpoint.h"
#include "qgpu/runtime/Qwen35Model.h"

using namespace qgpu;
using circuit::Circuit;
namespace fs = std::filesystem;

namespace {

fs::path tempDir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("qgpu-circuit-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

// One token per input assignment of `inputs` (bit i of the token index = truth of inputs[i]).
std::vector<std::vector<float>> assignments(const Circuit& c, const std::vector<int>& inputs) {
    std::vector<std::vector<float>> rows;
    for (int v = 0; v < (1 << inputs.size()); ++v) {
        std::vector<int> trueDims;
        for (size_t i = 0; i < inputs.size(); ++i)
            if (v >> i & 1) trueDims.push_back(inputs[i]);
        rows.push_back(c.tokenEmbedding(trueDims));
    }
    return rows;
}

// Runs every token through the emitted model; returns the final residual of each.
std::vector<std::vector<float>> run(const Circuit& c, const std::vector<std::vector<float>>& rows,
                                    DType dtype = DType::F32) {
    fs::path dir = tempDir("run");
    writeCircuitCheckpoint(dir.string(), c, rows, dtype);
    auto model = Qwen35Model::load(dir.string());
    fs::remove_all(dir);
    std::vector<std::vector<float>> out;
    ModelState state = model->newState();  // one sequence: each token also sees the ones before it
    for (int t = 0; t < int(rows.size()); ++t) out.push_back(model->hiddenStates({t}, state));
    return out;
}

bool truth(float x) { return x == -1.0f; }

// One token per (x, y) case with the bits of x in `a` and of y in `b`.
std::vector<std::vector<float>> operandRows(const Circuit& c, const std::vector<int>& a, const std::vector<int>& b,
                                            const std::vector<std::pair<uint32_t, uint32_t>>& cases) {
    std::vector<std::vector<float>> rows;
    for (auto [x, y] : cases) {
        std::vector<int> trueDims;
        for (int i = 0; i < 32; ++i) {
            if (x >> i & 1) trueDims.push_back(a[size_t(i)]);
            if (y >> i & 1) trueDims.push_back(b[size_t(i)]);
        }
        rows.push_back(c.tokenEmbedding(trueDims));
    }
    return rows;
}

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

TEST(CircuitGadgets, LayersComposeBecauseTheResidualEnergyStaysConstant) {
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
        for (size_t d = size_t(c.features().size()) + 1; d < text.size(); ++d) text[d] = dist(rng);
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

TEST(CircuitGadgets, Add32AndSub32OnRandomAndEdgeOperands) {
    circuit::Geometry g;
    g.hiddenSize = 512;
    g.intermediateSize = 256;
    for (bool subtract : {false, true}) {
        Circuit c(g);
        std::vector<int> a, b, out;
        for (int i = 0; i < 32; ++i) a.push_back(c.addFeature("a" + std::to_string(i)));
        for (int i = 0; i < 32; ++i) b.push_back(c.addFeature("b" + std::to_string(i)));
        for (int i = 0; i < 32; ++i) out.push_back(c.addFeature("s" + std::to_string(i)));
        c.add32(0, a, b, out, subtract, "add");
        std::mt19937 rng(subtract ? 2 : 1);
        std::vector<std::pair<uint32_t, uint32_t>> cases = {{0, 0},
                                                            {0xFFFFFFFFu, 1},
                                                            {1, 0xFFFFFFFFu},
                                                            {0x7FFFFFFFu, 1},
                                                            {0x80000000u, 0x80000000u},
                                                            {0xFFFF, 1},
                                                            {0xFFFFFFFFu, 0xFFFFFFFFu},
                                                            {12345, 67890},
                                                            {0, 1}};
        while (cases.size() < 120) cases.push_back({uint32_t(rng()), uint32_t(rng())});
        auto res = run(c, operandRows(c, a, b, cases));
        for (size_t k = 0; k < cases.size(); ++k) {
            uint32_t expect = subtract ? cases[k].first - cases[k].second : cases[k].first + cases[k].second, got = 0;
            for (int i = 0; i < 32; ++i) {
                float v = res[k][size_t(out[size_t(i)])];
                ASSERT_TRUE(v == 1.f || v == -1.f) << "bit " << i << " = " << v;
                got |= uint32_t(truth(v)) << i;
            }
            EXPECT_EQ(got, expect) << (subtract ? "sub " : "add ") << cases[k].first << ", " << cases[k].second;
        }
    }
}

TEST(CircuitGadgets, ComparesAndSelectOn32BitOperands) {
    circuit::Geometry g;
    g.hiddenSize = 512;
    g.intermediateSize = 256;
    Circuit c(g);
    std::vector<int> a, b, sel;
    for (int i = 0; i < 32; ++i) a.push_back(c.addFeature("a" + std::to_string(i)));
    for (int i = 0; i < 32; ++i) b.push_back(c.addFeature("b" + std::to_string(i)));
    for (int i = 0; i < 32; ++i) sel.push_back(c.addFeature("sel" + std::to_string(i)));
    int geu = c.addFeature("geu"), ges = c.addFeature("ges"), eq = c.addFeature("eq");
    c.greaterOrEqual32(0, a, b, geu, false, "geu");
    c.greaterOrEqual32(0, a, b, ges, true, "ges");
    c.equal32(0, a, b, eq, "eq");
    c.select(c.addLayer(), ges, a, b, sel);  // max(a, b), signed: a third layer reading the compare
    std::mt19937 rng(3);
    std::vector<std::pair<uint32_t, uint32_t>> cases = {{0, 0},
                                                        {1, 0},
                                                        {0, 1},
                                                        {0x80000000u, 0x7FFFFFFFu},
                                                        {0x7FFFFFFFu, 0x80000000u},
                                                        {0xFFFFFFFFu, 0},
                                                        {0, 0xFFFFFFFFu},
                                                        {0x10000, 0xFFFF},
                                                        {0xFFFF, 0x10000},
                                                        {0x12340000, 0x12340001},
                                                        {77, 77},
                                                        {0xFFFFFFFFu, 0xFFFFFFFFu}};
    while (cases.size() < 120) {
        uint32_t x = uint32_t(rng()), y = rng() % 3 == 0 ? x ^ (1u << (rng() % 32)) : uint32_t(rng());
        cases.push_back({x, y});
    }
    auto res = run(c, operandRows(c, a, b, cases));
    for (size_t k = 0; k < cases.size(); ++k) {
        auto [x, y] = cases[k];
        const auto& r = res[k];
        EXPECT_EQ(truth(r[size_t(geu)]), x >= y) << x << " >=u " << y;
        EXPECT_EQ(truth(r[size_t(ges)]), int32_t(x) >= int32_t(y)) << int32_t(x) << " >=s " << int32_t(y);
        EXPECT_EQ(truth(r[size_t(eq)]), x == y) << x << " == " << y;
        uint32_t got = 0;
        for (int i = 0; i < 32; ++i) got |= uint32_t(truth(r[size_t(sel[size_t(i)])])) << i;
        EXPECT_EQ(int32_t(got), std::max(int32_t(x), int32_t(y)))
            << "signed max of " << int32_t(x) << ", " << int32_t(y);
    }
}

TEST(CircuitGadgets, ShiftsByAVariableAmount) {
    circuit::Geometry g;
    g.hiddenSize = 256;
    g.intermediateSize = 2304;
    using Shift = Circuit::Shift;
    for (Shift kind : {Shift::Left, Shift::RightLogical, Shift::RightArithmetic}) {
        Circuit c(g);
        std::vector<int> a, s, out;
        for (int i = 0; i < 32; ++i) a.push_back(c.addFeature("a" + std::to_string(i)));
        for (int i = 0; i < 32; ++i) s.push_back(c.addFeature("s" + std::to_string(i)));
        for (int i = 0; i < 32; ++i) out.push_back(c.addFeature("o" + std::to_string(i)));
        c.shift32(0, kind, a, s, out, "sh");
        std::mt19937 rng(int(kind) + 10);
        std::vector<std::pair<uint32_t, uint32_t>> cases;
        for (uint32_t amount : {0u, 1u, 5u, 16u, 31u, 32u, 33u, 64u, 0x80000000u, 0xFFFFFFFFu})
            for (uint32_t v : {0x80000001u, 0x7FFFFFFFu, 0xDEADBEEFu}) cases.push_back({v, amount});
        while (cases.size() < 90) cases.push_back({uint32_t(rng()), uint32_t(rng() % 40)});
        auto res = run(c, operandRows(c, a, s, cases));
        for (size_t k = 0; k < cases.size(); ++k) {
            auto [v, n] = cases[k];
            uint32_t expect = kind == Shift::Left           ? (n >= 32 ? 0 : v << n)
                              : kind == Shift::RightLogical ? (n >= 32 ? 0 : v >> n)
                                                            : uint32_t(int32_t(v) >> std::min<uint32_t>(n, 31));
            uint32_t got = 0;
            for (int i = 0; i < 32; ++i) got |= uint32_t(truth(res[k][size_t(out[size_t(i)])])) << i;
            EXPECT_EQ(got, expect) << "kind " << int(kind) << " value " << v << " by " << n;
        }
    }
}
