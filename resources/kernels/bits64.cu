// Bit counts of 64-bit masks, as bitboard and bitset kernels use them: population count, leading zeros,
// the first set bit, the bit-reversed word, and the lowest set bit isolated with x & -x.
__global__ void bits64(const unsigned long long* masks, int* counts, unsigned long long* reversed,
                       unsigned long long* lowest) {
    int t = threadIdx.x;
    unsigned long long m = masks[t];
    counts[3 * t] = __popcll(m);
    counts[3 * t + 1] = __clzll((long long)m);
    counts[3 * t + 2] = __ffsll((long long)m);
    reversed[t] = __brevll(m);
    lowest[t] = m & (0 - m);
}
