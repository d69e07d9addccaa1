// Inclusive prefix sum in shared memory (Hillis-Steele), one block of up to 32 threads.
__global__ void prefix_sum(const int* in, int* out, int n) {
    __shared__ int s[32];
    int t = threadIdx.x;
    s[t] = t < n ? in[t] : 0;
    __syncthreads();
#pragma unroll 1
    for (int d = 1; d < (int)blockDim.x; d <<= 1) {
        int v = t >= d ? s[t - d] : 0;
        __syncthreads();
        s[t] += v;
        __syncthreads();
    }
    if (t < n) out[t] = s[t];
}
