// Elementwise multiply: c = a * b (low 32 bits).
__global__ void vec_mul(const int* a, const int* b, int* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] * b[i];
}
