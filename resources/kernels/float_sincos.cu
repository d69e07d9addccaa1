// A rotary embedding's table of phases: the sine and the cosine of each angle from one reduction
// (sincosf), for angles from tiny to huge (qgpu_math.h reduces them by 2/pi to 96 bits).
__global__ void float_sincos(const float* angle, float* s, float* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    sincosf(angle[i], &s[i], &c[i]);
}
