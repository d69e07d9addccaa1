// Warp votes, matches and reductions (resources/include/qgpu_votes.h) on the reference interpreter, against
// CUDA's definitions computed here for each 4-lane warp: in converged code, in a branch that leaves lanes
// inactive, and with masks that leave lanes out.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <functional>

#include "SequenceHarness.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

constexpr int kWarp = 4;

// f(lane, the warp's base thread) for every thread: the expected outputs.
std::vector<uint32_t> perLane(const std::function<uint32_t(int lane, int base)>& f) {
    std::vector<uint32_t> out;
    for (int i = 0; i < kThreads; ++i) out.push_back(f(i % kWarp, i - i % kWarp));
    return out;
}

// A kernel whose body reads x = a[i], y = b[i], z = c[i] and writes out[i].
Outcome runBody(const std::string& body, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                const std::vector<uint32_t>& c) {
    std::string src =
        "__global__ void k(const int* a, const int* b, const int* c, unsigned* out) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  int x = a[i], y = b[i], z = c[i];\n" +
        body + "}\n";
    return run(compileKernel(src, "k.cu").kernel.program, a, b, c);
}

}  // namespace

TEST(Votes, BallotAnyAllAndActiveMaskOverTheActiveLanesOfTheMask) {
    auto a = operands(11, {}), b = operands(12, {0xfu, 0x5u, 0xffffffffu, 0x3u}), c = operands(13, {});
    // Lanes with an odd x vote on z's low bit under the mask y; the others read their active mask.
    Outcome r = runBody(
        "  if (x & 1) out[i] = __ballot_sync(y, z & 1) | __any_sync(y, z & 1) << 8 | __all_sync(y, z & 1) << 9;\n"
        "  else out[i] = __activemask() << 12;\n",
        a, b, c);
    auto odd = [&](int t) { return (a[size_t(t)] & 1) != 0; };
    std::vector<uint32_t> expected = perLane([&](int lane, int base) {
        unsigned active = 0, votes = 0;
        for (int l = 0; l < kWarp; ++l)
            if (odd(base + l) == odd(base + lane)) {
                active |= 1u << l;
                votes |= (c[size_t(base + l)] & 1) << l;
            }
        if (!odd(base + lane)) return active << 12;
        unsigned mask = b[size_t(base + lane)], ballot = votes & mask;
        return ballot | unsigned(ballot != 0) << 8 | unsigned((votes & mask) == (active & mask)) << 9;
    });
    EXPECT_EQ(r.out, expected);
}

TEST(Votes, MatchesFindTheLanesWithTheCallersValue) {
    auto a = operands(14, {}), c = operands(15, {});
    for (auto& x : a) x %= 3;  // few values, so that lanes match
    Outcome r = runBody(
        "  int all;\n  unsigned same = __match_all_sync(0xffffffffu, x, &all);\n"
        "  out[i] = __match_any_sync(0xffffffffu, x) | (same & 0xffu) << 8 | all << 16;\n",
        a, a, c);
    std::vector<uint32_t> expected = perLane([&](int lane, int base) {
        unsigned same = 0;
        for (int l = 0; l < kWarp; ++l) same |= unsigned(a[size_t(base + l)] == a[size_t(base + lane)]) << l;
        bool all = same == 0xfu;
        return same | (all ? 0xffu : 0u) << 8 | unsigned(all) << 16;
    });
    EXPECT_EQ(r.out, expected);
}

TEST(Votes, WarpReductionsGiveEveryLaneTheResult) {
    auto a = operands(16, {0x80000000u, 0x7fffffffu, 0xffffffffu, 0});
    const std::pair<const char*, std::function<uint32_t(uint32_t, uint32_t)>> reductions[] = {
        {"__reduce_add_sync(0xffffffffu, x)", [](uint32_t p, uint32_t q) { return p + q; }},
        {"__reduce_min_sync(0xffffffffu, x)",
         [](uint32_t p, uint32_t q) { return uint32_t(std::min(int32_t(p), int32_t(q))); }},
        {"__reduce_max_sync(0xffffffffu, (unsigned)x)", [](uint32_t p, uint32_t q) { return std::max(p, q); }},
        {"__reduce_and_sync(0xffffffffu, (unsigned)x)", [](uint32_t p, uint32_t q) { return p & q; }},
        {"__reduce_or_sync(0xffffffffu, (unsigned)x)", [](uint32_t p, uint32_t q) { return p | q; }},
        {"__reduce_xor_sync(0xffffffffu, (unsigned)x)", [](uint32_t p, uint32_t q) { return p ^ q; }}};
    for (const auto& [call, combine] : reductions) {
        Outcome r = runCuda(call, "int", a, a);
        std::vector<uint32_t> expected = perLane([&](int, int base) {
            uint32_t v = a[size_t(base)];
            for (int l = 1; l < kWarp; ++l) v = combine(v, a[size_t(base + l)]);
            return v;
        });
        EXPECT_EQ(r.out, expected) << call;
    }
}

TEST(Votes, LaneMasksThroughInlinePtx) {
    auto a = operands(17, {});
    const std::pair<const char*, std::function<uint32_t(uint32_t)>> masks[] = {
        {"laneid", [](uint32_t lane) { return lane; }},
        {"lanemask_eq", [](uint32_t lane) { return 1u << lane; }},
        {"lanemask_lt", [](uint32_t lane) { return (1u << lane) - 1; }},
        {"lanemask_le", [](uint32_t lane) { return (2u << lane) - 1; }},
        {"lanemask_gt", [](uint32_t lane) { return ~((2u << lane) - 1); }},
        {"lanemask_ge", [](uint32_t lane) { return ~((1u << lane) - 1); }}};
    for (const auto& [name, expected] : masks) {
        Outcome r =
            runBody(std::string("  unsigned m;\n  asm(\"mov.u32 %0, %%") + name + ";\" : \"=r\"(m));\n  out[i] = m;\n",
                    a, a, a);
        EXPECT_EQ(r.out, perLane([&](int lane, int) { return expected(uint32_t(lane)); })) << name;
    }
}
