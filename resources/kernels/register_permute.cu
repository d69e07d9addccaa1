// A 16-element permutation held in registers, as transposes and FFT butterflies keep a row: all sixteen
// loaded values are live together with the index and base, more than the machine's 15 registers, so the
// allocator keeps some in local memory between their load and their store.
__global__ void register_permute(const int* in, int* out, int salt) {
    int base = 16 * (blockIdx.x * blockDim.x + threadIdx.x);
    int v0 = in[base + 0];
    int v1 = in[base + 1];
    int v2 = in[base + 2];
    int v3 = in[base + 3];
    int v4 = in[base + 4];
    int v5 = in[base + 5];
    int v6 = in[base + 6];
    int v7 = in[base + 7];
    int v8 = in[base + 8];
    int v9 = in[base + 9];
    int v10 = in[base + 10];
    int v11 = in[base + 11];
    int v12 = in[base + 12];
    int v13 = in[base + 13];
    int v14 = in[base + 14];
    int v15 = in[base + 15];
    out[base + 0] = v5 * 1 + (v6 ^ salt);
    out[base + 1] = v12 * 2 + (v7 ^ salt);
    out[base + 2] = v0 * 3 + (v3 ^ salt);
    out[base + 3] = v9 * 4 + (v2 ^ salt);
    out[base + 4] = v15 * 5 + (v12 ^ salt);
    out[base + 5] = v3 * 6 + (v8 ^ salt);
    out[base + 6] = v10 * 7 + (v9 ^ salt);
    out[base + 7] = v7 * 8 + (v4 ^ salt);
    out[base + 8] = v1 * 9 + (v10 ^ salt);
    out[base + 9] = v14 * 10 + (v5 ^ salt);
    out[base + 10] = v4 * 11 + (v15 ^ salt);
    out[base + 11] = v11 * 12 + (v0 ^ salt);
    out[base + 12] = v8 * 13 + (v11 ^ salt);
    out[base + 13] = v2 * 14 + (v1 ^ salt);
    out[base + 14] = v13 * 15 + (v14 ^ salt);
    out[base + 15] = v6 * 16 + (v13 ^ salt);
}
