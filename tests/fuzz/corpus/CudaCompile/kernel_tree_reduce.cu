// Tree reduction in shared memory (block size a power of two): one sum per block.
__global__ void tree_reduce(const int* in, int* out) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
#pragma unroll 1
    for (int stride = blockDim.x >> 1; stride > 0; stride >>= 1) {
        if (t < stride) s[t] += s[t + stride];
        __syncthreads();
    }
    if (t == 0) out[blockIdx.x] = s[0];
}
