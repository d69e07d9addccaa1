// BaseRows: rows kept as their changes to one base row (the compiled GPU's token embeddings).
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "qgpu/core/BaseRows.h"

using qgpu::BaseRows;

TEST(BaseRows, RowsAreTheBaseWithTheirChanges) {
    BaseRows rows({1.f, 0.f, 4.f, 0.f});
    rows.add({});
    rows.add({{1, -1.f}, {3, 2.f}});
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows.width(), 4u);
    EXPECT_EQ(rows.row(0), (std::vector<float>{1.f, 0.f, 4.f, 0.f}));
    EXPECT_EQ(rows.row(1), (std::vector<float>{1.f, -1.f, 4.f, 2.f}));
    EXPECT_EQ(rows.dense(), (std::vector<std::vector<float>>{rows.row(0), rows.row(1)}));
}

TEST(BaseRows, FullRowsKeepOnlyWhereTheyDifferFromTheFirst) {
    BaseRows rows;
    rows.addRow({1.f, 2.f, 3.f});
    rows.addRow({1.f, 5.f, 3.f});
    rows.addRow({-0.f, 2.f, 3.f});  // -0 is not +0's bits: kept
    EXPECT_TRUE(rows.changes(0).empty());
    ASSERT_EQ(rows.changes(1).size(), 1u);
    EXPECT_EQ(rows.changes(1)[0], (BaseRows::Change{1, 5.f}));
    ASSERT_EQ(rows.changes(2).size(), 1u);
    EXPECT_TRUE(std::signbit(rows.row(2)[0]));
    EXPECT_EQ(rows.row(1), (std::vector<float>{1.f, 5.f, 3.f}));
}

TEST(BaseRows, RefusesChangesOutsideTheBaseOrOutOfOrder) {
    BaseRows rows({0.f, 0.f});
    EXPECT_THROW(rows.add({{2, 1.f}}), std::invalid_argument);
    EXPECT_THROW(rows.add({{-1, 1.f}}), std::invalid_argument);
    EXPECT_THROW(rows.add({{1, 1.f}, {0, 1.f}}), std::invalid_argument);
    EXPECT_THROW(rows.add({{1, 1.f}, {1, 2.f}}), std::invalid_argument);
    EXPECT_THROW(rows.addRow({1.f}), std::invalid_argument);
    EXPECT_EQ(rows.size(), 0u);
}
