// Absolute value written as a ternary.
__global__ void abs_ternary(const int* a, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = a[i];
        out[i] = v < 0 ? -v : v;
    }
}
