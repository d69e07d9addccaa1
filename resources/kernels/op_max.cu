// Expression language: out[0] = max(a), n >= 1. Any 1D launch: each block scans all of a (threads stride by the
// block size), thread 0 combines the block's partial maxima; every block writes the same value.
__global__ void op_max(const int* a, int* out, int n) {
    __shared__ int s[32];
    int t = threadIdx.x;
    int m = a[0];
#pragma unroll 1
    for (int i = t; i < n; i += blockDim.x) m = max(m, a[i]);
    s[t] = m;
    __syncthreads();
    if (t == 0) {
#pragma unroll 1
        for (int j = 1; j < (int)blockDim.x; ++j) m = max(m, s[j]);
        out[0] = m;
    }
}
