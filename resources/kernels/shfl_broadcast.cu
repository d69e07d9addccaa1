// Shuffle broadcast: every lane takes lane src's value of its warp.
__global__ void shfl_broadcast(const int* a, int* out, int src) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    out[i] = __shfl_sync(QGPU_FULL_MASK, a[i], src);
}
