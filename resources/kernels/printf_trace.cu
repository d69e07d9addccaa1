// Debugging with printf, as people do: each thread reports where it is and what it computed, one thread
// reports the launch, and a value out of range gets a line of its own. The lines come out after the launch.
__global__ void printf_trace(const float* x, const int* label, float* clamped, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0) printf("launch: %d blocks of %d threads, n = %d\n", gridDim.x, blockDim.x, n);
    if (i >= n) return;
    float squared = x[i] * x[i];
    printf("[%d,%d] x[%2d] = %8.3f  squared %-10.4g label %c (0x%02x)\n", blockIdx.x, threadIdx.x, i, x[i], squared,
           'a' + label[i], (unsigned)label[i]);
    if (squared > 4.0f) {
        printf("  x[%d]: |x| = %e is over 2, clamped; %lld in 64 bits\n", i, fabsf(x[i]), (long long)label[i] << 40);
        squared = 4.0f;
    }
    clamped[i] = squared;
}
