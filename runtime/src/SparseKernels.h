// The sparse engine's element-wise kernels: activations, the RMS norm, and finding non-zeros. Each gives
// the same bits on every CPU (the file is built without fma contraction); some pick AVX2 at run time.
#pragma once

#include <cstddef>
#include <vector>

namespace qgpu::sparse {

// Outside (-89, 18) silu's formula needs no exp: exp(-x) overflows to inf (x / inf = -0), or 1 + exp(-x)
// rounds to 1 (x / 1 = x). Most of the circuit's neurons sit there.
float silu(float x);
// silu of n values in place: a blend where the formula needs no exp (on compiled circuits, every value),
// else value by value.
void siluAll(float* v, size_t n);
float sigmoid(float x);
float softplus(float x);

// Zero-centred RMSNorm of x into `out`: x[i] * scale * gain[i], gain = 1 + the norm's weight, scale from
// the sum of squares in eight interleaved partial sums (element i into sum i % 8), added pairwise. (The
// circuit's residual holds integers whose squares sum exactly, so the order does not matter there;
// LibTorch's order differs again.) `out` gets `padding` more elements, +0, past the end.
void rmsNorm(const std::vector<float>& x, const std::vector<float>& gain, float eps, size_t padding,
             std::vector<float>& out);

// The indices i < n where v[i] != 0 (NaN included, -0 not), ascending, into `at`; returns their count.
// Eight at a time: on compiled circuits most groups of eight are all zero.
size_t nonZeroIndices(const float* v, size_t n, int* at);

}  // namespace qgpu::sparse
