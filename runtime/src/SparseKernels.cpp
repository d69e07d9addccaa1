#include "SparseKernels.h"

#include <algorithm>
#include <bit>
#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace qgpu::sparse {

float silu(float x) {
    if (x == 0) return x;  // +-0 / 2, without the exp
    if (x < -89.f) return -0.f;
    if (x > 18.f) return x;
    return x / (1.f + std::exp(-x));
}

__attribute__((target_clones("avx2", "default"))) void siluAll(float* v, size_t n) {
    int formula = 0;
    for (size_t i = 0; i < n; ++i) {
        const bool low = v[i] < -89.f;  // bitwise ors, no branches: the compiler vectorises the loop
        formula |= int(!((v[i] == 0) | low | (v[i] > 18.f)));
    }
    if (formula) {
        for (size_t i = 0; i < n; ++i) v[i] = silu(v[i]);
        return;
    }
    for (size_t i = 0; i < n; ++i) v[i] = v[i] < -89.f ? -0.f : v[i];
}

float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }
float softplus(float x) { return x > 20.f ? x : std::log1p(std::exp(x)); }

namespace {

constexpr size_t L = 8;

float pairwise(const float* part) {
    return ((part[0] + part[1]) + (part[2] + part[3])) + ((part[4] + part[5]) + (part[6] + part[7]));
}

// The norm in two passes, portable and AVX2: both compute exactly the same sums and products in the same
// order.
float sumOfSquaresPortable(const float* x, size_t n) {
    float part[L] = {};
    size_t i = 0;
    for (; i + L <= n; i += L)
        for (size_t l = 0; l < L; ++l) part[l] += x[i + l] * x[i + l];
    for (size_t l = 0; i < n; ++i, ++l) part[l] += x[i] * x[i];
    return pairwise(part);
}
void scalePortable(const float* x, const float* gain, float scale, float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = x[i] * scale * gain[i];
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) float sumOfSquaresAvx2(const float* x, size_t n) {
    __m256 sum = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + L <= n; i += L) {
        const __m256 v = _mm256_loadu_ps(x + i);
        sum = _mm256_add_ps(sum, _mm256_mul_ps(v, v));
    }
    alignas(32) float part[L];
    _mm256_store_ps(part, sum);
    for (size_t l = 0; i < n; ++i, ++l) part[l] += x[i] * x[i];
    return pairwise(part);
}
__attribute__((target("avx2"))) void scaleAvx2(const float* x, const float* gain, float scale, float* out, size_t n) {
    const __m256 s = _mm256_set1_ps(scale);
    size_t i = 0;
    for (; i + L <= n; i += L)
        _mm256_storeu_ps(out + i, _mm256_mul_ps(_mm256_mul_ps(_mm256_loadu_ps(x + i), s), _mm256_loadu_ps(gain + i)));
    for (; i < n; ++i) out[i] = x[i] * scale * gain[i];
}
const bool kAvx2 = (__builtin_cpu_init(), __builtin_cpu_supports("avx2"));
float (*const sumOfSquares)(const float*, size_t) = kAvx2 ? sumOfSquaresAvx2 : sumOfSquaresPortable;
void (*const scaleBy)(const float*, const float*, float, float*, size_t) = kAvx2 ? scaleAvx2 : scalePortable;
#else
float (*const sumOfSquares)(const float*, size_t) = sumOfSquaresPortable;
void (*const scaleBy)(const float*, const float*, float, float*, size_t) = scalePortable;
#endif

}  // namespace

void rmsNorm(const std::vector<float>& x, const std::vector<float>& gain, float eps, size_t padding,
             std::vector<float>& out) {
    const size_t n = x.size();
    out.resize(n + padding);
    scaleBy(x.data(), gain.data(), 1.f / std::sqrt(sumOfSquares(x.data(), n) / float(n) + eps), out.data(), n);
    std::fill(out.begin() + long(n), out.end(), 0.f);
}

size_t nonZeroIndices(const float* v, size_t n, int* at) {
    size_t count = 0, i = 0;
#if defined(__SSE2__)
    const __m128 zero = _mm_setzero_ps();
    for (; i + 8 <= n; i += 8) {
        unsigned mask = unsigned(_mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(v + i), zero))) |
                        unsigned(_mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(v + i + 4), zero))) << 4;
        for (; mask; mask &= mask - 1) at[count++] = int(i) + std::countr_zero(mask);
    }
#endif
    for (; i < n; ++i)
        if (v[i] != 0) at[count++] = int(i);
    return count;
}

}  // namespace qgpu::sparse
