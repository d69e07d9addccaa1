// The last step of a layer norm: each element scaled by the reciprocal square root of its row's variance plus
// an epsilon, y[i] = x[i] * rsqrtf(var[i / 4] + eps), for rows of four.
__global__ void float_rsqrt_scale(const float* x, const float* var, float eps, float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    y[i] = x[i] * rsqrtf(var[i / 4] + eps);
}
