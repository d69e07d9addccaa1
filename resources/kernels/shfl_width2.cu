// Shuffles with width 2 (pairs of lanes): swap partners, pair sums via shuffle-down, broadcast of the odd lane.
__global__ void shfl_width2(const int* a, int* swapped, int* pairsum, int* odd) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = a[i];
    swapped[i] = __shfl_xor_sync(QGPU_FULL_MASK, v, 1, 2);
    pairsum[i] = v + __shfl_down_sync(QGPU_FULL_MASK, v, 1, 2);
    odd[i] = __shfl_sync(QGPU_FULL_MASK, v, 1, 2);
}
