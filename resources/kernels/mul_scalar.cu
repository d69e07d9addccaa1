// Array times scalar: out = a * k.
__global__ void mul_scalar(const int* a, int k, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] * k;
}
