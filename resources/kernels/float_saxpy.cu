// SAXPY: y[i] = alpha * x[i] + y[i] for i < n, a product and a sum each rounded (no fused multiply-add).
__global__ void float_saxpy(int n, float alpha, const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i] + y[i];
}
