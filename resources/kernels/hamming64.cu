// Hamming distances between 128-bit fingerprints held as two unsigned long long each, as similarity
// search kernels compare binary codes: one query against every code, __popcll of the xor of each half.
__global__ void hamming64(const unsigned long long* codes, const unsigned long long* query, int* distance, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    distance[i] = __popcll(codes[2 * i] ^ query[0]) + __popcll(codes[2 * i + 1] ^ query[1]);
}
