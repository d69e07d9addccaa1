// Each block sums its part of an int array in long long: a grid-stride loop per thread, then a tree in
// shared memory. The values are near INT_MAX, so every partial sum needs more than 32 bits.
__global__ void int64_block_sum(const int* values, long long* blockSums, int n) {
    __shared__ long long partial[8];
    long long sum = 0;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) sum += values[i];
    partial[threadIdx.x] = sum;
    __syncthreads();
    for (int half = blockDim.x / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) partial[threadIdx.x] += partial[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) blockSums[blockIdx.x] = partial[0];
}
