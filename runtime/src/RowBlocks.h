// Short rows of a sparse matrix computed eight at a time. Rows of like length share a block of eight; a
// block stores its rows slot by slot (the eight rows' columns of slot j, then their weights), padded to a
// multiple of four slots with a column that must read +0 and a weight of +0, so the eight rows' products
// run side by side (AVX2 gathers where the CPU has them) with none of a row loop's overhead per row.
// Each row's sum is the one Sparse::row gives, bit for bit: four partial sums from +0 over the slots
// j % 4 (a padded slot adds +0 * +0 to a sum that is never -0), added as (s0 + s1) + (s2 + s3).
#pragma once

#include <cstddef>
#include <vector>

namespace qgpu {

class RowBlocks {
public:
    static constexpr size_t kLanes = 8;

    // The rows `rows` (row ids, each at most once) of the matrix whose row r has the columns
    // column[start[r]..start[r+1]) with weights value[...]; x[zeroColumn] must be +0 when computing.
    static RowBlocks of(const std::vector<int>& start, const std::vector<int>& column, const std::vector<float>& value,
                        const std::vector<int>& rows, int zeroColumn);

    size_t blocks() const { return m_blocks.size(); }
    // The block index that divides the blocks into two runs of about equal work.
    size_t halfway() const { return m_halfway; }
    // use(rows, count, sums, block) for each block of [begin, end): its rows (kLanes, of which the first
    // `count` are in use) and their sums over x.
    template <typename Use>
    void each(size_t begin, size_t end, const float* x, Use&& use) const {
        alignas(32) float sum[kLanes];
        for (size_t b = begin; b < end; ++b) {
            const Block& block = m_blocks[b];
            sums(block, x, sum);
            use(block.rows, block.count, sum, b);
        }
    }
    // A block's rows; a lane past its count holds row 0 (whose sums are not to be used).
    const int* rows(size_t block) const { return m_blocks[block].rows; }
    size_t count(size_t block) const { return m_blocks[block].count; }

private:
    struct Block {
        size_t offset = 0;  // into m_columns and m_values: slots * kLanes entries
        size_t slots = 0;   // a multiple of 4
        size_t count = 0;   // rows in use, up to kLanes
        int rows[kLanes] = {};
    };
    void sums(const Block& block, const float* x, float* sum) const;

    std::vector<Block> m_blocks;
    std::vector<int> m_columns;
    std::vector<float> m_values;
    size_t m_halfway = 0;
};

}  // namespace qgpu
