// Integer axpy in place: y = alpha * x + y.
__global__ void axpy(int alpha, const int* x, int* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = alpha * x[i] + y[i];
}
