// Collatz steps counted in unsigned long long: some starting values climb past 2^32 before they fall to 1,
// so the trajectory needs 64-bit compares, shifts and 3n + 1.
__global__ void collatz64(const unsigned* start, int* steps, unsigned long long* peak) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long x = start[t], highest = x;
    int count = 0;
    while (x != 1) {
        x = (x & 1) ? 3 * x + 1 : x >> 1;
        highest = x > highest ? x : highest;
        ++count;
    }
    steps[t] = count;
    peak[t] = highest;
}
