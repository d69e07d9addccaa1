// Fills most of the ROM (118 of its 128 blocks): an unrolled run of conditional stores, each a branch of
// its own (a store cannot be made unconditional), with the lanes taking different paths through them.
__global__ void guarded_stores(const int* flags, int* out) {
    int t = threadIdx.x;
    int f = flags[t];
#pragma unroll
    for (int i = 0; i < 58; ++i)
        if (f >> (i % 10) & 1) out[t * 58 + i] = i + t;
}
