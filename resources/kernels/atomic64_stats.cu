// Whole-grid statistics in 64-bit atomics, as profiling and reduction kernels keep them: a byte count that
// passes 2^32, the extremes of signed values, a bitmap of the 64 buckets seen, and a compare-and-swap that
// claims each thread's slot only where it still holds the value the thread expects.
__global__ void atomic64_stats(const long long* values, unsigned long long* total, long long* extremes,
                               unsigned long long* seen, unsigned long long* slots, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long v = values[i];
    atomicAdd(total, (unsigned long long)(v < 0 ? -v : v));
    atomicMin(&extremes[0], v);
    atomicMax(&extremes[1], v);
    atomicOr(seen, 1ull << (v & 63));
    atomicCAS(&slots[i], (unsigned long long)i, (unsigned long long)v * 3);
}
