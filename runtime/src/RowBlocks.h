// Short rows of a sparse matrix computed eight at a time, in blocks of eight rows (in the order given, or
// shortest first so that a block's rows are of like length). A block stores its rows slot by slot (the
// eight rows' columns of slot j, then their weights), padded to a multiple of four slots with a column
// that must read +0 and a weight of +0, so the eight rows' products run side by side (AVX2 where the CPU
// has it) with none of a row loop's overhead per row.
// Each row's sum is the one Sparse::row gives, bit for bit: four partial sums from +0 over the slots
// j % 4 (a padded slot adds +0 * +0 to a sum that is never -0), added as (s0 + s1) + (s2 + s3).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace qgpu {

class RowBlocks {
public:
    static constexpr size_t kLanes = 8;

    // The rows `rows` (row ids, each at most once) of the matrix whose row r has the columns
    // column[start[r]..start[r+1]) with weights value[...]. The x that sums() reads must hold zeroColumn +
    // kLanes floats, x[zeroColumn] = +0.
    // In the order given, or with byLength shortest first (less padding where lengths vary).
    // Columns are stored in 16 bits: std::invalid_argument for a zeroColumn above 65,535, or a column of a
    // row outside [0, zeroColumn).
    enum class Order { AsGiven, ByLength };
    static RowBlocks of(const std::vector<int>& start, const std::vector<int>& column, const std::vector<float>& value,
                        const std::vector<int>& rows, int zeroColumn, Order order);

    size_t blocks() const { return m_blocks.size(); }
    // The block index that divides the blocks into two runs of about equal work.
    size_t halfway() const { return m_halfway; }
    // The sums over x of the rows of blocks [begin, end): out[(b - begin) * kLanes + lane]. Best: AVX2
    // where the CPU has it; Portable: plain C++ (the same bits, slower; for tests).
    enum class Instructions { Best, Portable };
    void sums(size_t begin, size_t end, const float* x, float* out,
              Instructions instructions = Instructions::Best) const;
    // Each lane's row, block after block, kLanes a block; -1 for a lane past the rows (its sum is +0).
    const std::vector<int>& lanes() const { return m_lanes; }
    // Whether a block's lanes hold kLanes consecutive rows, ascending.
    bool consecutive(size_t block) const { return m_consecutive[block]; }

    struct Block {
        size_t offset = 0;  // into m_columns, m_values or m_bfloats: slots * kLanes entries
        size_t slots = 0;   // a multiple of 4
    };
    // How a slot's lanes read x: all one column; all within x[base .. base + kLanes); or anywhere.
    struct SlotLoad {
        enum Kind : uint8_t { Shared, Window, Gather } kind = Gather;
        uint16_t base = 0;
    };
    size_t slots(SlotLoad::Kind kind) const;  // how many slots read x that way

private:
    std::vector<Block> m_blocks;
    std::vector<int> m_lanes;
    std::vector<uint8_t> m_consecutive;
    std::vector<uint16_t> m_columns;
    std::vector<float> m_values;      // the weights, or when every one is a bfloat16 value (low half 0),
    std::vector<uint16_t> m_bfloats;  // their upper halves instead: half the bytes to stream per token
    std::vector<SlotLoad> m_loads;    // per slot (offset / kLanes + j)
    size_t m_halfway = 0;
};

}  // namespace qgpu
