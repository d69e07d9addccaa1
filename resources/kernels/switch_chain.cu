// A switch-like if/else-if chain over ranges, a different computation per case.
__global__ void switch_chain(const int* a, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = a[i];
        int r;
        if (v < 0)
            r = -v;
        else if (v < 10)
            r = v * v;
        else if (v < 100)
            r = v - 50;
        else
            r = v + 1000;
        out[i] = r;
    }
}
