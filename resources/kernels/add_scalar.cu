// Array plus scalar: out = a + s.
__global__ void add_scalar(const int* a, int s, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + s;
}
