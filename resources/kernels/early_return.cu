// Early returns: threads past n leave first, then negative values leave with -1.
__global__ void early_return(const int* a, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = a[i];
    if (v < 0) {
        out[i] = -1;
        return;
    }
    out[i] = v * v;
}
