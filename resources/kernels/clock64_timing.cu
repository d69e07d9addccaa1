// Timing with the clock, as kernels that measure themselves do: each thread reads clock64() around a loop of
// work and keeps the difference, and waits in a spin loop on clock() for a few ticks. Only what a clock
// guarantees is checked (it advances, so a difference is positive and a spin loop ends), never a count:
// other threads' reads advance it too.
__global__ void clock64_timing(const int* data, int* sums, int* elapsedPositive, int* spinEnded, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    long long start = clock64();
    int sum = 0;
#pragma unroll 1
    for (int k = 0; k <= i; ++k) sum += data[k];
    long long elapsed = clock64() - start;
    sums[i] = sum;
    elapsedPositive[i] = elapsed > 0;
    clock_t begin = clock();
    int spins = 0;
#pragma unroll 1
    do ++spins;
    while (clock() - begin < 3);
    spinEnded[i] = spins >= 1 && spins <= 3;
}
