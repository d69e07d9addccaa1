// Population count by a loop over the bits (per-lane trip count: the position of the highest set bit).
__global__ void popcount_loop(const unsigned* a, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = a[i];
        int c = 0;
#pragma unroll 1
        while (x != 0) {
            c += x & 1;
            x >>= 1;
        }
        out[i] = c;
    }
}
