// Signed and unsigned bytes through shared memory: each block reverses its bytes in a __shared__ tile, adds a
// signed char that wraps at 8 bits, and keeps the low byte of three times each byte. Lanes of a warp write
// neighbouring bytes of one word, in both memories, at every position in the word.
__global__ void char_reverse(const signed char* in, signed char* out, unsigned char* triple, signed char delta) {
    __shared__ signed char tile[16];
    int t = threadIdx.x, n = blockDim.x, i = blockIdx.x * n + t;
    tile[n - 1 - t] = in[i];
    __syncthreads();
    out[i] = (signed char)(tile[t] + delta);
    triple[i] = (unsigned char)(tile[t] * 3);
}
