// Tree reduction in shared memory: 8 threads halve the active range each step; sum[0] gets the block's
// total, added in the tree's fixed order.
__global__ void float_reduce_shared(const float* in, float* sum) {
    __shared__ float partial[8];
    int t = threadIdx.x;
    partial[t] = in[t];
    __syncthreads();
#pragma unroll 1
    for (int s = 4; s > 0; s >>= 1) {
        if (t < s) partial[t] += partial[t + s];
        __syncthreads();
    }
    if (t == 0) sum[0] = partial[0];
}
