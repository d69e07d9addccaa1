// Angles in degrees wrapped into (-360, 360) with fmodf, the nearest whole degree (roundf, halves away
// from zero) and the binary exponent of each wrapped angle (frexpf): all exact.
__global__ void float_wrap_round(const float* degrees, float* wrapped, float* whole, int* exponent) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float w = fmodf(degrees[i], 360.0f);
    wrapped[i] = w;
    whole[i] = roundf(w);
    frexpf(w, &exponent[i]);
}
