// Division and square root, correctly rounded: q[i] = a[i] / b[i] and r[i] = sqrtf(a[i]), with zeros,
// infinities, NaN, negative numbers and subnormals among the operands.
__global__ void float_div_sqrt(const float* a, const float* b, float* q, float* r) {
    int i = threadIdx.x;
    q[i] = a[i] / b[i];
    r[i] = sqrtf(a[i]);
}
