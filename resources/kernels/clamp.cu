// Clamps into [lo, hi].
__global__ void clamp(const int* a, int* out, int lo, int hi, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = min(max(a[i], lo), hi);
}
