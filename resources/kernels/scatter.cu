// Scatter through a permutation: out[idx[i]] = src[i].
__global__ void scatter(const int* src, const int* idx, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[idx[i]] = src[i];
}
