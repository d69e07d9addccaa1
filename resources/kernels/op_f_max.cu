// Expression language: out[0] = max(a) in fp32 (fmaxf: a NaN is ignored unless every element is one), one
// thread block: per-thread maxima over a block-stride loop, then thread 0 over shared memory.
__global__ void op_f_max(const float* a, float* out, int n) {
    __shared__ float s[32];
    int t = threadIdx.x;
    float m = a[0];
#pragma unroll 1
    for (int i = t; i < n; i += blockDim.x) m = fmaxf(m, a[i]);
    s[t] = m;
    __syncthreads();
    if (t == 0) {
#pragma unroll 1
        for (int j = 1; j < (int)blockDim.x; ++j) m = fmaxf(m, s[j]);
        out[0] = m;
    }
}
