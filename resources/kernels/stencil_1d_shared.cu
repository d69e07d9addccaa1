// A 1-D stencil of radius 2 with the block's input and halo staged in shared memory, as CUDA courses teach
// it: the first RADIUS threads also load the halo on both sides, then every thread sums its window.
#define RADIUS 2
#define BLOCK 8
__global__ void stencil_1d_shared(const int* in, int* out, int n) {
    __shared__ int temp[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;
    temp[l] = g < n ? in[g] : 0;
    if (threadIdx.x < RADIUS) {
        int left = g - RADIUS, right = g + BLOCK;
        temp[l - RADIUS] = left >= 0 ? in[left] : 0;
        temp[l + BLOCK] = right < n ? in[right] : 0;
    }
    __syncthreads();
    int sum = 0;
    for (int o = -RADIUS; o <= RADIUS; ++o) sum += temp[l + o];
    if (g < n) out[g] = sum;
}
