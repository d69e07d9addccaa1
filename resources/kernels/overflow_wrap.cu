// 32-bit wrap-around: INT_MAX + 1, UINT_MAX + 1 and products that overflow (unsigned, so well defined).
__global__ void overflow_wrap(const unsigned* a, const unsigned* b, unsigned* sum, unsigned* prod, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        sum[i] = a[i] + b[i];
        prod[i] = a[i] * b[i];
    }
}
