// Bit intrinsics: population count, leading zeros, bit reversal, find-first-set and byte permutes.
__global__ void bit_intrinsics(const unsigned* words, int* counts, unsigned* reversed, unsigned* permuted) {
    int i = threadIdx.x;
    unsigned v = words[i];
    counts[i] = __popc(v);
    counts[i + 4] = __clz((int)v);
    counts[i + 8] = __ffs((int)v);
    reversed[i] = __brev(v);
    permuted[i] = __byte_perm(v, 0x11223344u, 0x0123);
    permuted[i + 4] = __byte_perm(v, (unsigned)i, 0x5410);
}
