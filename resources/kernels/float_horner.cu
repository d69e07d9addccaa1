// Horner's rule: p(x) = ((c3 x + c2) x + c1) x + c0 for each thread's x, coefficients from the highest.
__global__ void float_horner(const float* coef, const float* x, float* p) {
    int i = threadIdx.x;
    float v = x[i], acc = coef[3];
#pragma unroll 1
    for (int k = 2; k >= 0; --k) acc = acc * v + coef[k];
    p[i] = acc;
}
