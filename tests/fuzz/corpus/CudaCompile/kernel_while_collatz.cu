// A bounded while loop: Collatz steps to reach 1, at most 32.
__global__ void while_collatz(const unsigned* a, int* steps, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned x = a[i];
        int s = 0;
#pragma unroll 1
        while (x != 1 && s < 32) {
            x = (x & 1) ? 3 * x + 1 : x >> 1;
            ++s;
        }
        steps[i] = s;
    }
}
