#include "RowBlocks.h"

#include <algorithm>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace qgpu {

namespace {

constexpr size_t L = RowBlocks::kLanes;

// Eight rows' sums over `slots` slots (a multiple of 4), lane by lane. Both versions below compute exactly
// this, in this order; neither contracts a multiply and an add into fma (the file is built with
// -ffp-contract=off), so they give the same bits.
void blockSumsPortable(const int* column, const float* value, size_t slots, const float* x, float* sum) {
    float s0[L] = {}, s1[L] = {}, s2[L] = {}, s3[L] = {};
    for (size_t j = 0; j < slots; j += 4, column += 4 * L, value += 4 * L)
        for (size_t l = 0; l < L; ++l) {
            s0[l] += value[l] * x[column[l]];
            s1[l] += value[L + l] * x[column[L + l]];
            s2[l] += value[2 * L + l] * x[column[2 * L + l]];
            s3[l] += value[3 * L + l] * x[column[3 * L + l]];
        }
    for (size_t l = 0; l < L; ++l) sum[l] = (s0[l] + s1[l]) + (s2[l] + s3[l]);
}

#if defined(__x86_64__)
// The eight lanes in one AVX2 register: a gather, a multiply and an add per slot.
__attribute__((target("avx2"))) void blockSumsAvx2(const int* column, const float* value, size_t slots, const float* x,
                                                   float* sum) {
    __m256 s[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (size_t j = 0; j < slots; j += 4, column += 4 * L, value += 4 * L)
        for (size_t k = 0; k < 4; ++k) {
            const __m256i at = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(column + k * L));
            const __m256 product = _mm256_mul_ps(_mm256_loadu_ps(value + k * L), _mm256_i32gather_ps(x, at, 4));
            s[k] = _mm256_add_ps(s[k], product);
        }
    _mm256_storeu_ps(sum, _mm256_add_ps(_mm256_add_ps(s[0], s[1]), _mm256_add_ps(s[2], s[3])));
}
#endif

using BlockSums = void (*)(const int*, const float*, size_t, const float*, float*);

BlockSums chooseBlockSums() {
#if defined(__x86_64__)
    if (__builtin_cpu_supports("avx2")) return blockSumsAvx2;
#endif
    return blockSumsPortable;
}

const BlockSums blockSums = chooseBlockSums();

}  // namespace

RowBlocks RowBlocks::of(const std::vector<int>& start, const std::vector<int>& column, const std::vector<float>& value,
                        const std::vector<int>& rows, int zeroColumn) {
    auto length = [&](int r) { return start[size_t(r) + 1] - start[size_t(r)]; };
    std::vector<int> order = rows;  // shortest first, so that a block's rows need about the same slots
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return length(a) < length(b); });
    RowBlocks blocks;
    for (size_t first = 0; first < order.size(); first += kLanes) {
        Block block;
        block.count = std::min(kLanes, order.size() - first);
        std::copy_n(order.begin() + long(first), block.count, block.rows);
        const size_t longest = size_t(length(order[first + block.count - 1]));
        block.slots = std::max<size_t>(4, (longest + 3) / 4 * 4);
        block.offset = blocks.m_columns.size();
        blocks.m_columns.resize(block.offset + block.slots * kLanes, zeroColumn);
        blocks.m_values.resize(block.offset + block.slots * kLanes, 0.f);
        for (size_t lane = 0; lane < block.count; ++lane) {
            const int r = block.rows[lane];
            for (int i = start[size_t(r)], j = 0; i < start[size_t(r) + 1]; ++i, ++j) {
                blocks.m_columns[block.offset + size_t(j) * kLanes + lane] = column[size_t(i)];
                blocks.m_values[block.offset + size_t(j) * kLanes + lane] = value[size_t(i)];
            }
        }
        blocks.m_blocks.push_back(block);
    }
    size_t total = 0, sum = 0;
    for (const Block& block : blocks.m_blocks) total += block.slots;
    while (blocks.m_halfway < blocks.m_blocks.size() && 2 * sum < total)
        sum += blocks.m_blocks[blocks.m_halfway++].slots;
    return blocks;
}

void RowBlocks::sums(const Block& block, const float* x, float* sum) const {
    blockSums(m_columns.data() + block.offset, m_values.data() + block.offset, block.slots, x, sum);
}

}  // namespace qgpu
