// The largest launch: 4 blocks of 32 threads, 128 in all.
__global__ void largest_launch(const int* a, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * 3 + (int)(blockIdx.x << 8) - (int)threadIdx.x;
}
