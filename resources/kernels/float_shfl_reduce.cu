// Float warp reductions with shuffles: every lane ends with its warp's sum (butterfly, xor) and lane 0 with
// its warp's maximum (tree, down); the sums round, and each lane's adds meet the same pairs.
__global__ void float_shfl_reduce(const float* a, float* sum, float* mx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float s = a[i];
    s += __shfl_xor_sync(QGPU_FULL_MASK, s, 1);
    s += __shfl_xor_sync(QGPU_FULL_MASK, s, 2);
    sum[i] = s;
    float m = a[i];
    m = fmaxf(m, __shfl_down_sync(QGPU_FULL_MASK, m, 2));
    m = fmaxf(m, __shfl_down_sync(QGPU_FULL_MASK, m, 1));
    if (threadIdx.x % warpSize == 0) mx[i / warpSize] = m;
}
