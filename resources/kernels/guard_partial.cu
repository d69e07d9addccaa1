// Guarded tail: 10 elements, a block of 16 threads (the last warp idle, the third partly).
__global__ void guard_partial(const int* a, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * 2 + 1;
}
