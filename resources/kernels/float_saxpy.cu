// SAXPY: y[i] = alpha * x[i] + y[i] for i < n, one fused multiply-add as CUDA compiles it (one rounding).
__global__ void float_saxpy(int n, float alpha, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i] + y[i];
}
