// Rotates (Clang's funnel shifts), clearing a run-time bit, sign extension from 8 and 16 bits, a 16-bit
// byte swap.
__global__ void rotate_extend(const unsigned* in, unsigned* rotated, int* extended, unsigned r) {
    int t = threadIdx.x;
    unsigned v = in[t] + t;
    rotated[t] = (v << 7) | (v >> 25);
    rotated[t + 4] = (v >> r) | (v << (32 - r));
    rotated[t + 8] = v & ~(1u << (t * 9));
    extended[t] = ((int)v << 24) >> 24;
    extended[t + 4] = ((int)v << 16) >> 16;
    extended[t + 8] = (int)(((v & 0xFFu) << 8) | ((v >> 8) & 0xFFu));
}
