// Warp sum with shuffle-down; lane 0 of each warp writes it.
__global__ void shfl_down_reduce(const int* a, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int x = a[i];
    x += __shfl_down_sync(QGPU_FULL_MASK, x, 2);
    x += __shfl_down_sync(QGPU_FULL_MASK, x, 1);
    if ((threadIdx.x & 3) == 0) out[i >> 2] = x;
}
