// Histogram of values 0..7: atomics on shared bins per block, then one atomic per bin into global memory.
__global__ void shared_histogram(const int* data, int* hist, int n) {
    __shared__ int bins[8];
    int t = threadIdx.x;
    int i = blockIdx.x * blockDim.x + t;
    if (t < 8) bins[t] = 0;
    __syncthreads();
    if (i < n) atomicAdd(&bins[data[i]], 1);
    __syncthreads();
    if (t < 8) atomicAdd(&hist[t], bins[t]);
}
