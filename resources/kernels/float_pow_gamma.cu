// Gamma correction of an image's linear intensities, as image pipelines write it: each pixel raised to the
// encoding exponent (1 / 2.2, computed on the host) with powf, black and white kept, and a negative input (a
// filter's overshoot) clamped to 0 first.
__global__ void float_pow_gamma(const float* linear, float* encoded, float exponent, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) encoded[i] = powf(fmaxf(linear[i], 0.0f), exponent);
}
