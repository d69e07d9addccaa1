// Each thread squares its own 4x4 matrix held in registers, as small per-thread transforms (graphics,
// robotics, 4x4 blocks of a larger product) do: the 16 entries stay live while the 16 results are
// summed, more values than the machine's 15 registers, so the compiler spills some to local memory.
__global__ void mat4_square(const int* m, int* out) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    const int* a = m + 16 * t;
    int e[16];
#pragma unroll
    for (int k = 0; k < 16; ++k) e[k] = a[k];
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c)
            out[16 * t + 4 * r + c] = e[4 * r] * e[c] + e[4 * r + 1] * e[4 + c] + e[4 * r + 2] * e[8 + c] +
                                      e[4 * r + 3] * e[12 + c];
}
