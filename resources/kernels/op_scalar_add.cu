// Expression language: out = a + s, any 1D launch (grid-stride loop).
__global__ void op_scalar_add(const int* a, int s, int* out, int n) {
    int stride = blockDim.x * gridDim.x;
#pragma unroll 1
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = a[i] + s;
}
