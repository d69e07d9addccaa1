// The integer LM head's argmax search picks the row a full pass's argmax picks (the lowest among equal
// logits), and on inputs that sit near one row's code, as the compiled GPU's do, it visits a small part of
// the trie.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include "qgpu/runtime/IntegerHead.h"

using namespace qgpu;

namespace {

constexpr size_t kDims = 24;

// Rows of -1, 0 and +1 with a field structure like the GPU's code: the first dims pick a kind, and a kind
// uses only some of the rest. Every tenth row repeats an earlier one.
std::vector<std::vector<float>> codeRows(size_t count, std::mt19937& random) {
    std::vector<std::vector<float>> rows;
    std::uniform_int_distribution<int> sign(0, 1), kind(0, 3);
    for (size_t r = 0; r < count; ++r) {
        if (r % 10 == 9) {
            rows.push_back(rows[r / 2]);
            continue;
        }
        std::vector<float>& row = rows.emplace_back(kDims, 0.f);
        int k = kind(random);
        for (size_t i = 0; i < 4; ++i) row[i] = int(i) == k ? 1.f : -1.f;
        for (size_t i = 4; i < kDims; ++i)
            if ((i + size_t(k)) % 3 != 0) row[i] = sign(random) ? 1.f : -1.f;
    }
    return rows;
}

size_t fullArgmax(const IntegerHead& head, const std::vector<float>& y) {
    std::vector<float> logits = head.logits(y);
    return size_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
}

}  // namespace

TEST(IntegerHead, TheSearchPicksTheFullPassArgmaxOnRandomInputs) {
    std::mt19937 random(11);
    auto rows = codeRows(3000, random);
    auto head = IntegerHead::fromRows(rows, kDims);
    ASSERT_TRUE(head);
    std::normal_distribution<float> normal(0.f, 1.f);
    for (int trial = 0; trial < 300; ++trial) {
        std::vector<float> y(kDims);
        for (float& v : y) v = normal(random);
        if (trial % 7 == 0) std::fill(y.begin() + 4, y.end(), 0.f);  // ties between whole groups of rows
        ASSERT_EQ(head->argmax(y), fullArgmax(*head, y)) << "trial " << trial;
    }
}

TEST(IntegerHead, EqualLogitsGoToTheLowestRow) {
    std::vector<std::vector<float>> rows = {{1, -1}, {-1, 1}, {1, 1}, {1, -1}, {-1, 1}};
    auto head = IntegerHead::fromRows(rows, 2);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->argmax({0.f, 0.f}), 0u);
    EXPECT_EQ(head->argmax({-2.f, 2.f}), 1u);  // rows 1 and 4 tie
    EXPECT_EQ(head->argmax({-0.f, -0.f}), fullArgmax(*head, {-0.f, -0.f}));
}

TEST(IntegerHead, AnInputNearOneRowsCodeVisitsFewNodes) {
    std::mt19937 random(5);
    auto rows = codeRows(20000, random);
    auto head = IntegerHead::fromRows(rows, kDims);
    ASSERT_TRUE(head);
    std::uniform_real_distribution<float> jitter(0.5f, 1.5f);
    for (size_t target : {size_t(3), size_t(1234), size_t(19998)}) {
        std::vector<float> y(kDims);
        for (size_t i = 0; i < kDims; ++i) y[i] = rows[target][i] * jitter(random);
        size_t got = head->argmax(y);
        EXPECT_EQ(got, fullArgmax(*head, y));
        EXPECT_EQ(rows[got], rows[target]);
        EXPECT_GT(IntegerHead::lastVisits(), 0u);
        EXPECT_LT(IntegerHead::lastVisits(), 20 * kDims) << "the search pruned little";
    }
}

TEST(IntegerHead, NonFiniteInputsTakeTheFullPass) {
    std::mt19937 random(3);
    auto head = IntegerHead::fromRows(codeRows(100, random), kDims);
    ASSERT_TRUE(head);
    std::vector<float> y(kDims, 1.f);
    y[5] = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(head->argmax(y), fullArgmax(*head, y));
    y[5] = std::numeric_limits<float>::infinity();
    EXPECT_EQ(head->argmax(y), fullArgmax(*head, y));
    EXPECT_EQ(IntegerHead::lastVisits(), 0u);
}

TEST(IntegerHead, OnlyIntegerRowsWithinInt8Qualify) {
    EXPECT_FALSE(IntegerHead::fromRows({{1.f, 0.5f}}, 2));
    EXPECT_FALSE(IntegerHead::fromRows({{128.f, 0.f}}, 2));
    auto head = IntegerHead::fromRows({{-127.f, 3.f}, {2.f, -5.f}}, 2);
    ASSERT_TRUE(head);
    EXPECT_EQ(head->logits({1.f, 2.f}), (std::vector<float>{-121.f, -8.f}));
    EXPECT_EQ(head->argmax({1.f, 2.f}), 1u);
}
