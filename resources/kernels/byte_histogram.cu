// A histogram of an 8-bit image in the style of the CUDA samples' small-bin histogram: each block counts
// its pixels into shared bins (the pixel's top three bits) with shared atomics, then adds its bins to the
// global histogram. Pixels are unsigned chars, four to a word.
__global__ void byte_histogram(const unsigned char* image, unsigned* histogram, int n) {
    __shared__ unsigned bins[8];
    int t = threadIdx.x;
    if (t < 8) bins[t] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += blockDim.x * gridDim.x) atomicAdd(&bins[image[i] >> 5], 1u);
    __syncthreads();
    if (t < 8) atomicAdd(&histogram[t], bins[t]);
}
