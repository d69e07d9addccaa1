// A loop with the same trip count in every lane: acc = acc * 2 + a, m times.
__global__ void loop_uniform(const int* a, int* out, int m, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = a[i];
        int acc = 0;
#pragma unroll 1
        for (int k = 0; k < m; ++k) acc = acc * 2 + v;
        out[i] = acc;
    }
}
