// Inclusive scan within each warp of 4 with shuffle-up.
__global__ void shfl_scan(const int* a, int* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x & 3;
    int x = a[i];
    int y = __shfl_up_sync(QGPU_FULL_MASK, x, 1);
    if (lane >= 1) x += y;
    y = __shfl_up_sync(QGPU_FULL_MASK, x, 2);
    if (lane >= 2) x += y;
    out[i] = x;
}
