// Flags and counters built from the bitwise and exchange atomics, in shared and global memory: the set of
// residues seen (atomicOr), the ones never seen (atomicAnd clearing bits), a parity word (atomicXor), one
// winner elected by atomicExch, and wrapping counters (atomicInc, atomicDec), all order-independent.
__global__ void atomic_flags(const unsigned* x, unsigned* flags, int* winners, unsigned* counters) {
    __shared__ unsigned seen;
    int t = threadIdx.x;
    if (t == 0) seen = 0;
    __syncthreads();
    unsigned v = x[blockIdx.x * blockDim.x + t];
    atomicOr(&seen, 1u << (v & 31));
    atomicAnd(&flags[1], ~(1u << (v & 31)));
    atomicXor(&flags[2], v);
    if (atomicExch(&flags[3], 1u) == 0) atomicAdd(&winners[0], 1);
    if (atomicExch_block(&flags[4 + blockIdx.x], 1u) == 0) atomicAdd(&winners[1 + blockIdx.x], 1);
    atomicInc(&counters[0], 9u);
    atomicDec(&counters[1], 6u);
    __syncthreads();
    if (t == 0) atomicOr_system(&flags[0], seen);
}
