// Divergent if/else inside a warp: odd values go to 3v + 1, even ones are halved.
__global__ void if_else(const int* a, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = a[i];
        if (v & 1)
            out[i] = 3 * v + 1;
        else
            out[i] = v >> 1;
    }
}
