// Bytes and halfwords of int arrays: Clang narrows these to 8- and 16-bit loads and stores of part of a word.
__global__ void narrow_access(const unsigned* in, const int* signedIn, unsigned* parts, int* extended, unsigned* patched) {
    __shared__ unsigned staged[4];
    int t = threadIdx.x;
    staged[t] = in[t];
    __syncthreads();
    parts[t] = in[t] >> 24;
    parts[t + 4] = in[t] & 0xFFFFu;
    parts[t + 8] = staged[3 - t] & 0xFFu;
    extended[t] = (signed char)signedIn[t];
    extended[t + 4] = (short)signedIn[t];
    patched[t] = (patched[t] & 0xFFFFFF00u) | (in[t] & 0xFFu);
    patched[t + 4] = (patched[t + 4] & 0x0000FFFFu) | (in[t] << 16);
}
