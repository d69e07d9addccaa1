// The smallest value and its index in one 64-bit atomicMin, a common trick: the value's order-preserving
// bits go in the high word and the index in the low word, so ties keep the lowest index.
__global__ void argmin_packed64(const int* values, unsigned long long* best, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned key = (unsigned)values[i] ^ 0x80000000u;  // signed order as unsigned order
    atomicMin(best, ((unsigned long long)key << 32) | (unsigned)i);
}
