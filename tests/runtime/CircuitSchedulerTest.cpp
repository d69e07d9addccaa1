// The scheduler places a dataflow program of gadgets into layers and reuses residual slots; the emitted
// layers, run through Qwen35Model, must compute the program exactly.
#include <gtest/gtest.h>

#include <array>
#include <random>
#include <set>

#include "CircuitTestSupport.h"
#include "qgpu/compiler/circuit/Scheduler.h"

using namespace qgpu;
using namespace qgpu::testing;
using circuit::Circuit;
using circuit::Scheduler;

namespace {

std::vector<std::vector<float>> tokens(const Circuit& c, const std::vector<std::vector<int>>& words,
                                       const std::vector<std::vector<uint32_t>>& cases) {
    std::vector<std::vector<float>> rows;
    for (const auto& values : cases) {
        std::vector<int> trueDims;
        for (size_t w = 0; w < words.size(); ++w)
            for (int i = 0; i < 32; ++i)
                if (values[w] >> i & 1) trueDims.push_back(words[w][size_t(i)]);
        rows.push_back(c.tokenEmbedding(trueDims));
    }
    return rows;
}

}  // namespace

TEST(CircuitScheduler, PlacesADataflowProgramAsEarlyAsItsInputsAllowAndReusesSlots) {
    circuit::Geometry g;
    g.hiddenSize = 512;
    g.intermediateSize = 2560;  // a variable shift needs 2112 neurons in its second layer
    Scheduler s(g);
    auto a = s.input("a"), b = s.input("b"), c = s.input("c");
    auto sum = s.add(a, b, "sum");                                           // layers 0..2
    auto prod = s.multiply(sum, c, "prod");                                  // 3..5
    auto diff = s.subtract(prod, a, "diff");                                 // 6..8
    auto top = s.minMax(diff, b, true, true, "max");                         // 9..11
    auto same = s.equal(diff, b, "same");                                    // 9..10
    auto shifted = s.shift(Circuit::Shift::RightArithmetic, top, c, "shr");  // 12..13
    auto out = s.select(same, a, shifted, "out");                            // 14
    s.keep(prod);
    s.keep(out);
    const Circuit& circuit = s.build();
    EXPECT_EQ(circuit.layerCount(), 15);
    EXPECT_EQ(s.firstLayer("prod"), 3);
    EXPECT_EQ(s.firstLayer("same"), 9);
    EXPECT_EQ(s.firstLayer("out"), 14);
    std::set<int> dims;
    for (const auto& f : circuit.features()) dims.insert(f.dim);
    EXPECT_LT(dims.size(), circuit.features().size()) << "some slots hold several values one after another";
    EXPECT_LT(circuit.dimsUsed(), g.hiddenSize);

    std::mt19937 rng(11);
    std::vector<std::vector<uint32_t>> cases = {
        {0, 0, 0}, {1, 2, 3}, {0xFFFFFFFFu, 1, 31}, {7, 7, 0}, {0x80000000u, 0x7FFFFFFFu, 33}};
    while (cases.size() < 60) cases.push_back({uint32_t(rng()), uint32_t(rng()), uint32_t(rng() % 40)});
    auto res = run(circuit, tokens(circuit, {s.dims(a), s.dims(b), s.dims(c)}, cases));
    for (size_t k = 0; k < cases.size(); ++k) {
        uint32_t x = cases[k][0], y = cases[k][1], z = cases[k][2];
        uint32_t p = (x + y) * z, d = p - x;
        int32_t m = std::max(int32_t(d), int32_t(y));
        uint32_t sh = uint32_t(m >> std::min<uint32_t>(z, 31));
        EXPECT_EQ(word(res[k], s.dims(prod)), p) << "case " << k;
        EXPECT_EQ(word(res[k], s.dims(out)), d == y ? x : sh) << "case " << k;
    }
}

TEST(CircuitScheduler, SpreadsGadgetsThatDoNotFitOneLayerTogether) {
    circuit::Geometry g;
    g.hiddenSize = 512;
    g.intermediateSize = 2048;
    Scheduler s(g);
    auto a = s.input("a"), b = s.input("b");
    std::vector<Scheduler::Value> products;
    for (int i = 0; i < 3; ++i) {
        products.push_back(s.multiply(a, b, "mul" + std::to_string(i)));
        s.keep(products.back());
    }
    const Circuit& circuit = s.build();
    EXPECT_EQ(s.firstLayer("mul0"), 0);
    EXPECT_GT(s.firstLayer("mul1"), 0) << "a multiply's last layer needs most of the intermediate size";
    EXPECT_GT(s.firstLayer("mul2"), s.firstLayer("mul1"));
    EXPECT_LE(circuit.intermediateNeeded(), g.intermediateSize);
    std::vector<std::vector<uint32_t>> cases = {{3, 5}, {0xFFFFFFFFu, 0xFFFFFFFFu}, {123456789, 987654321}};
    auto res = run(circuit, tokens(circuit, {s.dims(a), s.dims(b)}, cases));
    for (size_t k = 0; k < cases.size(); ++k)
        for (auto p : products) EXPECT_EQ(word(res[k], s.dims(p)), cases[k][0] * cases[k][1]);
}

TEST(CircuitScheduler, RejectsAGadgetTooBigForAnyLayer) {
    circuit::Geometry g;
    g.hiddenSize = 512;
    g.intermediateSize = 256;
    Scheduler s(g);
    auto a = s.input("a"), b = s.input("b");
    s.multiply(a, b, "mul");
    try {
        s.build();
        FAIL() << "expected std::length_error";
    } catch (const std::length_error& e) {
        EXPECT_NE(std::string(e.what()).find("mul needs"), std::string::npos) << e.what();
    }
}

TEST(CircuitScheduler, ReadBitsOfAMemoryReuseAnEarlierMemorysSlots) {
    // m1 is read in layer 0 and copied out; m2 (layer 1) stores that copy. m2's read bits take m1's slots,
    // cleared back to 64 in layer 0. Per token: m1[w] = data, r1 = m1[r], m2[w] = r1, out = m2[r].
    circuit::Geometry g;
    g.hiddenSize = 256;
    g.intermediateSize = 256;
    g.linearKeyHeadDim = g.linearValueHeadDim = 128;
    Scheduler s(g);
    auto write = s.input("write", 4), read = s.input("read", 4), data = s.input("data");
    auto copy = [&](Scheduler::Value v, const std::string& name) {
        return s.gadget(name, 1, {v}, {32},
                        [](Circuit& c, int first, const Scheduler::Dims& d, const Scheduler::Dims& o) {
                            for (int i = 0; i < 32; ++i)
                                c.threshold(first, {{d[0][size_t(i)], 1}}, -1, o[0][size_t(i)]);
                        })[0];
    };
    auto r1 = s.memory("m1", write, data, read);
    auto r2 = s.memory("m2", write, copy(r1, "c1"), read);
    auto out = copy(r2, "c2");
    s.keep(out);
    const Circuit& circuit = s.build();
    EXPECT_EQ(s.firstLayer("m2"), 1);
    EXPECT_EQ(s.dims(r2), s.dims(r1)) << "m2 reads into m1's released read bits";

    std::mt19937 rng(5);
    std::vector<std::vector<float>> rows;
    std::vector<std::array<uint32_t, 3>> ops;  // write row, read row, data
    for (int t = 0; t < 40; ++t) {
        std::array<uint32_t, 3> op{uint32_t(rng() % 4), uint32_t(rng() % 4), uint32_t(rng())};
        std::vector<int> on{s.dims(write)[op[0]], s.dims(read)[op[1]]};
        for (int i = 0; i < 32; ++i)
            if (op[2] >> i & 1) on.push_back(s.dims(data)[size_t(i)]);
        rows.push_back(circuit.tokenEmbedding(on));
        ops.push_back(op);
    }
    auto res = run(circuit, rows);
    std::array<uint32_t, 4> m1{}, m2{};
    for (size_t t = 0; t < ops.size(); ++t) {
        auto [w, r, value] = ops[t];
        m1[w] = value;
        m2[w] = m1[r];
        EXPECT_EQ(word(res[t], s.dims(out)), m2[r]) << "token " << t;
    }
}

// The sparse engine's input: emitted as entries, the large matrices hold exactly the dense emission's
// non-zero weights, bit for bit; every other tensor is the same. A program with MLP gadgets, memories, a
// previous-token memory and the input projections' split constants.
TEST(CircuitScheduler, EmitsTheSameWeightsAsEntriesAsDense) {
    circuit::Geometry g;
    g.hiddenSize = 512;
    g.intermediateSize = 2560;
    g.linearKeyHeadDim = g.linearValueHeadDim = 128;
    Scheduler s(g);
    auto a = s.input("a"), b = s.input("b"), write = s.input("write", 4), read = s.input("read", 4);
    auto any = s.input("any", 1);
    auto sum = s.add(a, b, "sum");
    auto stored = s.memory("m", write, sum, read);
    auto before = s.previous("p", stored, any);
    s.keep(s.add(before, a, "out"));
    const Circuit& circuit = s.build();
    std::vector<std::vector<float>> rows{circuit.tokenEmbedding({s.dims(any)[0]})};
    std::vector<circuit::NamedTensor> dense = circuit.emit(rows), sparse = circuit.emit(rows, true);
    ASSERT_EQ(dense.size(), sparse.size());
    int matrices = 0;
    for (size_t i = 0; i < dense.size(); ++i) {
        const circuit::NamedTensor &d = dense[i], &e = sparse[i];
        SCOPED_TRACE(d.name);
        ASSERT_EQ(d.name, e.name);
        ASSERT_EQ(d.shape, e.shape);
        if (!e.sparse) {
            EXPECT_EQ(d.values, e.values);
            continue;
        }
        ++matrices;
        EXPECT_TRUE(e.values.empty());
        std::vector<std::pair<int64_t, float>> nonZero;
        for (size_t j = 0; j < d.values.size(); ++j)
            if (d.values[j] != 0) nonZero.push_back({int64_t(j), d.values[j]});
        EXPECT_EQ(e.entries, nonZero);
    }
    EXPECT_EQ(matrices, 6 * circuit.layerCount());  // qkv, z, out_proj, gate, up, down per layer
}
