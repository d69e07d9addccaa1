// A Hann-style taper from phases given in half-turns: w = sinpif(p), exact at whole and half turns (0 and
// +-1) where sinf(pi * p) would not be, with sinPi's signed zeros.
__global__ void float_sinpi(const float* phase, float* w) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    w[i] = sinpif(phase[i]);
}
