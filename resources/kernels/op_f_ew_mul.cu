// Expression language: out = a * b elementwise in fp32 (.rn), any 1D launch (grid-stride loop).
__global__ void op_f_ew_mul(const float* a, const float* b, float* out, int n) {
    int stride = blockDim.x * gridDim.x;
#pragma unroll 1
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) out[i] = a[i] * b[i];
}
