// Rounding to an integral float: floorf, ceilf, truncf and rintf (ties to even), signs of zero kept.
__global__ void float_round(const float* f, float* r) {
    int i = threadIdx.x;
    float x = f[i];
    r[i] = floorf(x);
    r[i + 8] = ceilf(x);
    r[i + 16] = truncf(x);
    r[i + 24] = rintf(x);
}
