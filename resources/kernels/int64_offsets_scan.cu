// Exclusive prefix sums of per-row counts into 64-bit offsets, as CSR and stream-compaction kernels build
// them: a Hillis-Steele scan in shared memory over long long, one block.
__global__ void int64_offsets_scan(const int* counts, long long* offsets, int n) {
    __shared__ long long s[16];
    int t = threadIdx.x;
    s[t] = t > 0 && t <= n ? (long long)counts[t - 1] : 0;
    __syncthreads();
    for (int d = 1; d < 16; d <<= 1) {
        long long add = t >= d ? s[t - d] : 0;
        __syncthreads();
        s[t] += add;
        __syncthreads();
    }
    if (t <= n) offsets[t] = s[t];
}
