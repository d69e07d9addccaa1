// Bitwise and, or, xor, not.
__global__ void bitwise(const unsigned* a, const unsigned* b, unsigned* band, unsigned* bor, unsigned* bxor,
                        unsigned* bnot, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = a[i], y = b[i];
        band[i] = x & y;
        bor[i] = x | y;
        bxor[i] = x ^ y;
        bnot[i] = ~x;
    }
}
