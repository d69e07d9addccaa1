#include "RowBlocks.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <stdexcept>
#include <string>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace qgpu {

namespace {

constexpr size_t L = RowBlocks::kLanes;

// A weight as stored: a float, or the upper half of one (bfloat16) where every weight fits.
float widen(float w) { return w; }
float widen(uint16_t upper) { return std::bit_cast<float>(uint32_t(upper) << 16); }

// Eight rows' sums over `slots` slots (a multiple of 4), lane by lane. Both versions below compute exactly
// this, in this order; neither contracts a multiply and an add into fma (the file is built with
// -ffp-contract=off), so they give the same bits. (`load` says how each slot reads its eight inputs, which
// only the AVX2 version needs.)
template <typename Weight>
void blockSumsPortable(const uint16_t* column, const Weight* value, const RowBlocks::SlotLoad*, size_t slots,
                       const float* x, float* sum) {
    float s0[L] = {}, s1[L] = {}, s2[L] = {}, s3[L] = {};
    for (size_t j = 0; j < slots; j += 4, column += 4 * L, value += 4 * L)
        for (size_t l = 0; l < L; ++l) {
            s0[l] += widen(value[l]) * x[column[l]];
            s1[l] += widen(value[L + l]) * x[column[L + l]];
            s2[l] += widen(value[2 * L + l]) * x[column[2 * L + l]];
            s3[l] += widen(value[3 * L + l]) * x[column[3 * L + l]];
        }
    for (size_t l = 0; l < L; ++l) sum[l] = (s0[l] + s1[l]) + (s2[l] + s3[l]);
}

#if defined(__x86_64__)
__attribute__((target("avx2"), always_inline)) inline __m256 loadWeights(const float* value) {
    return _mm256_loadu_ps(value);
}
__attribute__((target("avx2"), always_inline)) inline __m256 loadWeights(const uint16_t* value) {
    const __m256i wide = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(value)));
    return _mm256_castsi256_ps(_mm256_slli_epi32(wide, 16));
}

// The eight lanes of x a slot reads, as cheaply as its columns allow: one value broadcast, eight from a
// window of x permuted, else a gather (several times the cost of either).
__attribute__((target("avx2"), always_inline)) inline __m256 loadInputs(const uint16_t* column,
                                                                        RowBlocks::SlotLoad load, const float* x) {
    if (load.kind == RowBlocks::SlotLoad::Shared) return _mm256_broadcast_ss(x + column[0]);
    const __m256i at = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(column)));
    if (load.kind == RowBlocks::SlotLoad::Window)
        return _mm256_permutevar8x32_ps(_mm256_loadu_ps(x + load.base),
                                        _mm256_sub_epi32(at, _mm256_set1_epi32(load.base)));
    return _mm256_i32gather_ps(x, at, 4);
}

// The eight lanes in one AVX2 register: a load, a multiply and an add per slot.
template <typename Weight>
__attribute__((target("avx2"), always_inline)) inline void blockSumsAvx2(const uint16_t* column, const Weight* value,
                                                                         const RowBlocks::SlotLoad* load, size_t slots,
                                                                         const float* x, float* sum) {
    __m256 s[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps()};
    for (size_t j = 0; j < slots; j += 4, column += 4 * L, value += 4 * L)
        for (size_t k = 0; k < 4; ++k) {
            const __m256 inputs = loadInputs(column + k * L, load[j + k], x);
            s[k] = _mm256_add_ps(s[k], _mm256_mul_ps(loadWeights(value + k * L), inputs));
        }
    _mm256_storeu_ps(sum, _mm256_add_ps(_mm256_add_ps(s[0], s[1]), _mm256_add_ps(s[2], s[3])));
}
#endif

// The sums of `count` blocks into out, kLanes a block, by one of the versions above (each loop is compiled
// for the instructions of the version it inlines).
template <typename Weight>
void blocksSumsPortable(const RowBlocks::Block* block, size_t count, const uint16_t* column, const Weight* value,
                        const RowBlocks::SlotLoad* load, const float* x, float* out) {
    for (size_t b = 0; b < count; ++b, ++block, out += L)
        blockSumsPortable(column + block->offset, value + block->offset, load + block->offset / L, block->slots, x,
                          out);
}

#if defined(__x86_64__)
template <typename Weight>
__attribute__((target("avx2"))) void blocksSumsAvx2(const RowBlocks::Block* block, size_t count, const uint16_t* column,
                                                    const Weight* value, const RowBlocks::SlotLoad* load,
                                                    const float* x, float* out) {
    for (size_t b = 0; b < count; ++b, ++block, out += L)
        blockSumsAvx2(column + block->offset, value + block->offset, load + block->offset / L, block->slots, x, out);
}
#endif

template <typename Weight>
using BlockSums = void (*)(const RowBlocks::Block*, size_t, const uint16_t*, const Weight*, const RowBlocks::SlotLoad*,
                           const float*, float*);

template <typename Weight>
BlockSums<Weight> chooseBlockSums() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return blocksSumsAvx2<Weight>;
#endif
    return blocksSumsPortable<Weight>;
}

const BlockSums<float> floatSums = chooseBlockSums<float>();
const BlockSums<uint16_t> bfloatSums = chooseBlockSums<uint16_t>();

// How a slot's eight lanes read x (unused lanes read the padding column like any other: every version
// computes the same lanes from the same inputs).
RowBlocks::SlotLoad slotLoad(const uint16_t* column) {
    if (std::all_of(column, column + L, [&](uint16_t c) { return c == column[0]; }))
        return {RowBlocks::SlotLoad::Shared, 0};
    const uint16_t low = *std::min_element(column, column + L), high = *std::max_element(column, column + L);
    if (high - low < int(L)) return {RowBlocks::SlotLoad::Window, low};
    return {RowBlocks::SlotLoad::Gather, 0};
}

bool fitsBfloat16(float w) { return std::bit_cast<uint32_t>(w) << 16 == 0; }

}  // namespace

RowBlocks RowBlocks::of(const std::vector<int>& start, const std::vector<int>& column, const std::vector<float>& value,
                        const std::vector<int>& rows, int zeroColumn, Order rowOrder) {
    auto length = [&](int r) { return start[size_t(r) + 1] - start[size_t(r)]; };
    std::vector<int> order = rows;
    if (rowOrder == Order::ByLength)
        std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return length(a) < length(b); });
    if (zeroColumn > 65535) throw std::invalid_argument("row blocks hold columns below 65,536 only");
    for (int r : rows)
        for (int i = start[size_t(r)]; i < start[size_t(r) + 1]; ++i)
            if (column[size_t(i)] < 0 || column[size_t(i)] >= zeroColumn)
                throw std::invalid_argument("a row reads column " + std::to_string(column[size_t(i)]) +
                                            ", outside x's " + std::to_string(zeroColumn));
    RowBlocks blocks;
    for (size_t first = 0; first < order.size(); first += kLanes) {
        Block block;
        const size_t count = std::min(kLanes, order.size() - first);
        for (size_t lane = 0; lane < kLanes; ++lane) blocks.m_lanes.push_back(lane < count ? order[first + lane] : -1);
        size_t longest = 0;
        for (size_t lane = 0; lane < count; ++lane) longest = std::max(longest, size_t(length(order[first + lane])));
        bool consecutive = count == kLanes;
        for (size_t lane = 1; lane < count; ++lane)
            consecutive = consecutive && order[first + lane] == order[first] + int(lane);
        blocks.m_consecutive.push_back(consecutive);
        block.slots = std::max<size_t>(4, (longest + 3) / 4 * 4);
        block.offset = blocks.m_columns.size();
        blocks.m_columns.resize(block.offset + block.slots * kLanes, uint16_t(zeroColumn));
        blocks.m_values.resize(block.offset + block.slots * kLanes, 0.f);
        for (size_t lane = 0; lane < count; ++lane) {
            const int r = order[first + lane];
            for (int i = start[size_t(r)], j = 0; i < start[size_t(r) + 1]; ++i, ++j) {
                blocks.m_columns[block.offset + size_t(j) * kLanes + lane] = uint16_t(column[size_t(i)]);
                blocks.m_values[block.offset + size_t(j) * kLanes + lane] = value[size_t(i)];
            }
        }
        blocks.m_blocks.push_back(block);
    }
    for (const Block& block : blocks.m_blocks)
        for (size_t j = 0; j < block.slots; ++j)
            blocks.m_loads.push_back(slotLoad(&blocks.m_columns[block.offset + j * kLanes]));
    if (std::all_of(blocks.m_values.begin(), blocks.m_values.end(), fitsBfloat16)) {
        for (float w : blocks.m_values) blocks.m_bfloats.push_back(uint16_t(std::bit_cast<uint32_t>(w) >> 16));
        blocks.m_values = {};
    }
    size_t total = 0, sum = 0;
    for (const Block& block : blocks.m_blocks) total += block.slots;
    while (blocks.m_halfway < blocks.m_blocks.size() && 2 * sum < total)
        sum += blocks.m_blocks[blocks.m_halfway++].slots;
    return blocks;
}

void RowBlocks::sums(size_t begin, size_t end, const float* x, float* out, Instructions instructions) const {
    const bool portable = instructions == Instructions::Portable;
    if (m_bfloats.empty())
        (portable ? blocksSumsPortable<float> : floatSums)(m_blocks.data() + begin, end - begin, m_columns.data(),
                                                           m_values.data(), m_loads.data(), x, out);
    else
        (portable ? blocksSumsPortable<uint16_t> : bfloatSums)(m_blocks.data() + begin, end - begin, m_columns.data(),
                                                               m_bfloats.data(), m_loads.data(), x, out);
}

size_t RowBlocks::slots(SlotLoad::Kind kind) const {
    return size_t(std::count_if(m_loads.begin(), m_loads.end(), [&](SlotLoad load) { return load.kind == kind; }));
}

}  // namespace qgpu
