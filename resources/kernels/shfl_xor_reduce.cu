// Butterfly (xor) reduction: every lane ends with its warp's sum and max.
__global__ void shfl_xor_reduce(const int* a, int* sum, int* mx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int s = a[i];
    int m = s;
    s += __shfl_xor_sync(QGPU_FULL_MASK, s, 1);
    m = max(m, __shfl_xor_sync(QGPU_FULL_MASK, m, 1));
    s += __shfl_xor_sync(QGPU_FULL_MASK, s, 2);
    m = max(m, __shfl_xor_sync(QGPU_FULL_MASK, m, 2));
    sum[i] = s;
    mx[i] = m;
}
