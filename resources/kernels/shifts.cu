// Shifts by per-element amounts (0..31): left and logical right on unsigned, arithmetic right on int.
__global__ void shifts(const unsigned* u, const int* s, const unsigned* amt, unsigned* shl, unsigned* shr, int* sar,
                       int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned k = amt[i];
        shl[i] = u[i] << k;
        shr[i] = u[i] >> k;
        sar[i] = s[i] >> k;
    }
}
