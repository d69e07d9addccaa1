// Small quotients of thread indices: Clang computes them in 16 bits (mul.hi.u16, rem.u16, setp.u16).
__global__ void narrow_arithmetic(const int* in, int* out) {
    unsigned t = threadIdx.x;
    int w = blockDim.x;
    out[t] = in[t / 3] + (int)(t % 3);
    out[t + 16] = in[(t + 1) % w] * ((t % 5) == 0 ? -1 : 1);
}
