// Reverse: out[n - 1 - i] = a[i].
__global__ void reverse(const int* a, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[n - 1 - i] = a[i];
}
