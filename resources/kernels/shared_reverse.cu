// Staging through shared memory with a barrier: each block reverses its own slice.
__global__ void shared_reverse(const int* in, int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    int base = blockIdx.x * blockDim.x;
    s[t] = in[base + t];
    __syncthreads();
    out[base + t] = s[blockDim.x - 1 - t];
}
