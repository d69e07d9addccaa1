// Fused multiply-add with one rounding: threads 0-7 compute r[i] = fmaf(a[i], b[i], c[i]); threads 8-15 the
// residual of a product, fmaf(a, b, -(a * b)), which is exact. Cancellations, infinities, NaN and
// subnormals among the operands.
__global__ void float_fma(const float* a, const float* b, const float* c, float* r) {
    int i = threadIdx.x, j = i & 7;
    float addend = i < 8 ? c[j] : -(a[j] * b[j]);
    r[i] = fmaf(a[j], b[j], addend);
}
