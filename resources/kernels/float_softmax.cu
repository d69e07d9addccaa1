// Softmax over rows of four, one warp per row: the row's maximum by butterfly shuffles, the exponentials of
// the shifted scores (expf), their sum by shuffles, and each exponential divided by the sum.
__global__ void float_softmax(const float* x, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
    float m = fmaxf(v, __shfl_xor_sync(0xf, v, 1));
    m = fmaxf(m, __shfl_xor_sync(0xf, m, 2));
    float e = expf(v - m);
    float s = e + __shfl_xor_sync(0xf, e, 1);
    s = s + __shfl_xor_sync(0xf, s, 2);
    y[i] = e / s;
}
