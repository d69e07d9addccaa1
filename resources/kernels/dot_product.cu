// Dot product: products summed within each warp by shuffles, one atomicAdd per warp.
__global__ void dot_product(const int* a, const int* b, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int p = i < n ? a[i] * b[i] : 0;
    p += __shfl_down_sync(QGPU_FULL_MASK, p, 2);
    p += __shfl_down_sync(QGPU_FULL_MASK, p, 1);
    if ((threadIdx.x & 3) == 0) atomicAdd(&out[0], p);
}
