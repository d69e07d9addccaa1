// The high word of 64-bit products: __mulhi and __umulhi.
__global__ void multiply_high(const int* a, const int* b, int* hi, unsigned* uhi) {
    int i = threadIdx.x;
    hi[i] = __mulhi(a[i], b[i]);
    uhi[i] = __umulhi((unsigned)a[i], (unsigned)b[i]);
}
