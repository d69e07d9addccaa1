// Grid-stride loop: 8 threads cover 21 elements.
__global__ void grid_stride(const int* a, int* out, int n) {
    int stride = blockDim.x * gridDim.x;
#pragma unroll 1
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = a[i] * a[i] - 1;
}
