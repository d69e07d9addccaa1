// 32-bit arithmetic gadgets proven exact through Qwen35Model: random and edge operands, compared with
// plain C++.
#include <gtest/gtest.h>

#include <random>

#include "CircuitTestSupport.h"

using namespace qgpu;
using namespace qgpu::testing;
using circuit::Circuit;

namespace {

std::vector<int> word32(Circuit& c, const std::string& name) {
    std::vector<int> bits;
    for (int i = 0; i < 32; ++i) bits.push_back(c.addFeature(name + std::to_string(i)));
    return bits;
}

// Edge operands (wrap, sign and 16-bit half boundaries, equal and neighbouring values), then random ones:
// a third differ from x in one bit, a quarter have a small y.
std::vector<std::pair<uint32_t, uint32_t>> edgeAndRandomCases(unsigned seed, size_t count) {
    std::vector<std::pair<uint32_t, uint32_t>> cases = {{0, 0},
                                                        {0, 1},
                                                        {1, 0},
                                                        {0xFFFFFFFFu, 1},
                                                        {1, 0xFFFFFFFFu},
                                                        {0x7FFFFFFFu, 1},
                                                        {0xFFFF, 1},
                                                        {0xFFFFFFFFu, 0},
                                                        {0, 0xFFFFFFFFu},
                                                        {0xFFFFFFFFu, 0xFFFFFFFFu},
                                                        {0x80000000u, 0x80000000u},
                                                        {0x80000000u, 0x7FFFFFFFu},
                                                        {0x7FFFFFFFu, 0x80000000u},
                                                        {0x10000, 0xFFFF},
                                                        {0xFFFF, 0x10000},
                                                        {0xFFFF, 0xFFFF},
                                                        {0x12340000, 0x12340001},
                                                        {12345, 67890},
                                                        {77, 77}};
    std::mt19937 rng(seed);
    while (cases.size() < count) {
        uint32_t x = uint32_t(rng()), y = rng() % 3 == 0 ? x ^ (1u << (rng() % 32)) : uint32_t(rng());
        if (rng() % 4 == 0) y &= 0xFFFF;  // small operands too
        cases.push_back({x, y});
    }
    return cases;
}

}  // namespace

TEST(CircuitArithmetic, Add32AndSub32OnRandomAndEdgeOperands) {
    circuit::Geometry g;
    g.hiddenSize = 512;
    g.intermediateSize = 256;
    for (bool subtract : {false, true}) {
        Circuit c(g);
        auto a = word32(c, "a"), b = word32(c, "b"), out = word32(c, "s");
        c.add32(0, a, b, out, subtract, "add");
        auto cases = edgeAndRandomCases(subtract ? 2 : 1, 120);
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

TEST(CircuitArithmetic, ComparesAndSelectOn32BitOperands) {
    circuit::Geometry g;
    g.hiddenSize = 512;
    g.intermediateSize = 256;
    Circuit c(g);
    auto a = word32(c, "a"), b = word32(c, "b"), sel = word32(c, "sel");
    int geu = c.addFeature("geu"), ges = c.addFeature("ges"), eq = c.addFeature("eq");
    c.greaterOrEqual32(0, a, b, geu, false, "geu");
    c.greaterOrEqual32(0, a, b, ges, true, "ges");
    c.equal32(0, a, b, eq, "eq");
    c.select(c.addLayer(), ges, a, b, sel);  // max(a, b), signed: a third layer reading the compare
    auto cases = edgeAndRandomCases(3, 120);
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

TEST(CircuitArithmetic, ShiftsByAVariableAmount) {
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

TEST(CircuitArithmetic, Multiply32LowWord) {
    circuit::Geometry g;
    g.hiddenSize = 256;
    g.intermediateSize = 2048;
    Circuit c(g);
    auto a = word32(c, "a"), b = word32(c, "b"), out = word32(c, "p");
    c.multiply32(0, a, b, out, "mul");
    ASSERT_EQ(c.layerCount(), 3);
    auto cases = edgeAndRandomCases(5, 200);
    auto res = run(c, operandRows(c, a, b, cases));
    for (size_t k = 0; k < cases.size(); ++k) {
        auto [x, y] = cases[k];
        for (int i = 0; i < 32; ++i) {
            float v = res[k][size_t(out[size_t(i)])];
            ASSERT_TRUE(v == 1.f || v == -1.f) << "bit " << i << " = " << v << " for " << x << " * " << y;
        }
        EXPECT_EQ(word(res[k], out), x * y) << x << " * " << y;
    }
}

TEST(CircuitArithmetic, MinAndMaxSignedAndUnsigned) {
    circuit::Geometry g;
    g.hiddenSize = 512;
    g.intermediateSize = 512;
    Circuit c(g);
    auto a = word32(c, "a"), b = word32(c, "b");
    auto maxS = word32(c, "maxs"), minS = word32(c, "mins"), maxU = word32(c, "maxu"), minU = word32(c, "minu");
    c.minMax32(0, a, b, maxS, true, true, "maxs");
    c.minMax32(0, a, b, minS, false, true, "mins");
    c.minMax32(0, a, b, maxU, true, false, "maxu");
    c.minMax32(0, a, b, minU, false, false, "minu");
    auto cases = edgeAndRandomCases(6, 100);
    auto res = run(c, operandRows(c, a, b, cases));
    for (size_t k = 0; k < cases.size(); ++k) {
        auto [x, y] = cases[k];
        EXPECT_EQ(int32_t(word(res[k], maxS)), std::max(int32_t(x), int32_t(y)));
        EXPECT_EQ(int32_t(word(res[k], minS)), std::min(int32_t(x), int32_t(y)));
        EXPECT_EQ(word(res[k], maxU), std::max(x, y));
        EXPECT_EQ(word(res[k], minU), std::min(x, y));
    }
}

TEST(CircuitArithmetic, Bfloat16WeightsGiveTheSameResults) {
    // Constants are split over three constant dims in 8-bit parts and every other weight is a small
    // integer times a power of two, so a bf16 checkpoint computes exactly what the fp32 one does.
    circuit::Geometry g;
    g.hiddenSize = 512;
    g.intermediateSize = 2048;
    Circuit c(g);
    auto a = word32(c, "a"), b = word32(c, "b"), sum = word32(c, "s"), prod = word32(c, "p");
    int ge = c.addFeature("ge");
    c.add32(0, a, b, sum, true, "sub");
    c.multiply32(0, a, b, prod, "mul");
    c.greaterOrEqual32(0, a, b, ge, true, "ge");
    auto cases = edgeAndRandomCases(7, 60);
    auto rows = operandRows(c, a, b, cases);
    auto f32 = run(c, rows, DType::F32), bf16 = run(c, rows, DType::BF16);
    for (size_t k = 0; k < cases.size(); ++k) {
        auto [x, y] = cases[k];
        EXPECT_EQ(word(bf16[k], sum), x - y) << "bf16 " << x << " - " << y;
        EXPECT_EQ(word(bf16[k], prod), x * y) << "bf16 " << x << " * " << y;
        EXPECT_EQ(truth(bf16[k][size_t(ge)]), int32_t(x) >= int32_t(y));
        EXPECT_EQ(f32[k], bf16[k]) << "case " << k;
    }
}
