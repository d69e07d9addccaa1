// RowBlocks against the sum it promises, bit for bit: each row's products into four partial sums by
// position, from +0, added as (s0 + s1) + (s2 + s3), on the CPU's best instructions and on plain C++ alike.
// Rows are built so that every way a slot reads x occurs (one shared column, a window of eight, a gather),
// in float and in bfloat16 storage, with an inf and a NaN in x too.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "RowBlocks.h"
#include "qgpu/runtime/StateRows.h"

namespace qgpu {
namespace {

struct Csr {
    std::vector<int> start{0}, column;
    std::vector<float> value;
    void addRow(const std::vector<std::pair<int, float>>& entries) {  // columns ascending
        for (const auto& [c, w] : entries) {
            column.push_back(c);
            value.push_back(w);
        }
        start.push_back(int(column.size()));
    }
    float reference(int r, const std::vector<float>& x) const {
        float s[4] = {};
        for (int i = start[size_t(r)], j = 0; i < start[size_t(r) + 1]; ++i, ++j)
            s[j % 4] += value[size_t(i)] * x[size_t(column[size_t(i)])];
        return (s[0] + s[1]) + (s[2] + s[3]);
    }
};

constexpr int kWidth = 300;  // x's columns; x[kWidth] is the +0 the padding reads

// Rows in groups of eight alike: a shared first column (a bias), then per row a column of its own within
// a window of eight, then scattered ones; the first 64 rows have 2 to 13 entries, the others 0 to 13.
// `bfloat` keeps every weight a bfloat16 value.
Csr randomRows(std::mt19937& rng, int rows, bool bfloat) {
    std::uniform_int_distribution<int> anyColumn(0, kWidth - 1), length(0, 13), longer(2, 13);
    std::uniform_real_distribution<float> weight(-3.f, 3.f);
    auto w = [&] {
        float v = weight(rng);
        return bfloat ? std::bit_cast<float>(std::bit_cast<uint32_t>(v) & 0xffff0000u) : v;
    };
    Csr m;
    for (int r = 0; r < rows; ++r) {
        std::vector<std::pair<int, float>> entries;
        const int n = r < 64 ? longer(rng) : length(rng);
        if (n > 0) entries.push_back({0, w()});
        if (n > 1) entries.push_back({8 + (r / 8 % 4) * 8 + r % 8, w()});
        for (int i = 2; i < n; ++i) entries.push_back({40 + anyColumn(rng) % (kWidth - 40), w()});
        std::sort(entries.begin(), entries.end());
        entries.erase(std::unique(entries.begin(), entries.end(),
                                  [](const auto& a, const auto& b) { return a.first == b.first; }),
                      entries.end());
        m.addRow(entries);
    }
    return m;
}

// Finite values, zeros of both signs and, with `special`, an inf and a NaN among the scattered columns.
std::vector<float> randomInput(std::mt19937& rng, bool special) {
    std::uniform_real_distribution<float> value(-5.f, 5.f);
    std::vector<float> x(kWidth + RowBlocks::kLanes, 0.f);
    for (int i = 0; i < kWidth; ++i) x[size_t(i)] = i % 7 == 0 ? -0.f : i % 5 == 0 ? 0.f : value(rng);
    if (special) {
        x[101] = std::numeric_limits<float>::infinity();
        x[202] = std::numeric_limits<float>::quiet_NaN();
    }
    return x;
}

bool sameBits(float a, float b) {
    return std::isnan(a) ? std::isnan(b) : std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b);
}

TEST(RowBlocks, EveryRowsSumIsTheFourPartialSumsBitForBit) {
    std::mt19937 rng(7);
    for (bool bfloat : {false, true})
        for (auto order : {RowBlocks::Order::AsGiven, RowBlocks::Order::ByLength})
            for (bool special : {false, true}) {
                SCOPED_TRACE(std::string(bfloat ? "bfloat16" : "float") + (special ? ", inf and NaN" : ""));
                Csr m = randomRows(rng, 203, bfloat);
                std::vector<int> rows;
                for (int r = 0; r<203; r += r> 64 && r % 9 == 4 ? 2 : 1) rows.push_back(r);  // some left out
                RowBlocks blocks = RowBlocks::of(m.start, m.column, m.value, rows, kWidth, order);
                ASSERT_EQ(blocks.blocks(), (rows.size() + 7) / 8);
                ASSERT_LE(blocks.halfway(), blocks.blocks());
                if (order == RowBlocks::Order::AsGiven) {
                    for (auto kind :
                         {RowBlocks::SlotLoad::Shared, RowBlocks::SlotLoad::Window, RowBlocks::SlotLoad::Gather})
                        EXPECT_GT(blocks.slots(kind), 0u) << "every way of reading x occurs, kind " << int(kind);
                }
                std::vector<float> x = randomInput(rng, special), out(blocks.blocks() * RowBlocks::kLanes);
                std::vector<float> portable(out.size());
                blocks.sums(0, blocks.blocks(), x.data(), out.data());
                blocks.sums(0, blocks.blocks(), x.data(), portable.data(), RowBlocks::Instructions::Portable);
                std::vector<int> seen;
                for (size_t i = 0; i < out.size(); ++i) {
                    EXPECT_TRUE(sameBits(out[i], portable[i]))
                        << "lane " << i << ": " << out[i] << " vs " << portable[i];
                    const int r = blocks.lanes()[i];
                    if (r < 0) {
                        EXPECT_EQ(std::bit_cast<uint32_t>(out[i]), 0u) << "an unused lane sums to +0";
                        continue;
                    }
                    seen.push_back(r);
                    EXPECT_TRUE(sameBits(out[i], m.reference(r, x))) << "row " << r;
                }
                std::sort(seen.begin(), seen.end());
                EXPECT_EQ(seen, rows) << "every row once";
                // A run of blocks from the middle gives the same sums as the whole.
                std::vector<float> part((blocks.blocks() - 3) * RowBlocks::kLanes);
                blocks.sums(3, blocks.blocks(), x.data(), part.data());
                for (size_t i = 0; i < part.size(); ++i) EXPECT_TRUE(sameBits(part[i], out[i + 3 * RowBlocks::kLanes]));
            }
}

TEST(RowBlocks, RowsInTheirOrderMarkConsecutiveBlocks) {
    std::mt19937 rng(3);
    Csr m = randomRows(rng, 24, false);
    std::vector<int> rows;
    for (int r = 0; r < 24; ++r)
        if (r != 12) rows.push_back(r);
    RowBlocks blocks = RowBlocks::of(m.start, m.column, m.value, rows, kWidth, RowBlocks::Order::AsGiven);
    ASSERT_EQ(blocks.blocks(), 3u);
    EXPECT_TRUE(blocks.consecutive(0));   // rows 0-7
    EXPECT_FALSE(blocks.consecutive(1));  // 8-11, 13-16
    EXPECT_FALSE(blocks.consecutive(2));  // 17-23 and an unused lane
    EXPECT_EQ(blocks.lanes().back(), -1);
}

TEST(RowBlocks, ColumnsBeyondSixteenBitsOrOutsideXAreRefused) {
    Csr m;
    m.addRow({{0, 1.f}});
    m.addRow({{5, 1.f}, {kWidth, 2.f}});
    EXPECT_THROW(RowBlocks::of(m.start, m.column, m.value, {0}, 70000, RowBlocks::Order::AsGiven),
                 std::invalid_argument);
    EXPECT_THROW(RowBlocks::of(m.start, m.column, m.value, {0, 1}, kWidth, RowBlocks::Order::AsGiven),
                 std::invalid_argument);
    EXPECT_NO_THROW(RowBlocks::of(m.start, m.column, m.value, {0}, kWidth, RowBlocks::Order::AsGiven));
}

TEST(StateRows, FreshRowsReadZeroLargeOrSmall) {
    for (size_t n : {size_t(100), size_t(1) << 18}) {
        StateRows rows(n);
        ASSERT_EQ(rows.size(), n);
        for (size_t i = 0; i < n; i += 97) ASSERT_EQ(std::bit_cast<uint32_t>(rows[i]), 0u) << i;
        rows[n - 1] = 2.f;
        StateRows copy = rows;  // a copy holds the values, written or not
        EXPECT_EQ(copy[n - 1], 2.f);
        EXPECT_EQ(copy[0], 0.f);
    }
}

}  // namespace
}  // namespace qgpu
