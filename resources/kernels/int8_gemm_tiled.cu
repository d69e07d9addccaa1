// C = A * B for signed 8-bit matrices with 32-bit accumulators, as quantized inference computes it: 4 x 4
// tiles of A and B widened to int as they are staged through shared memory, one output element per thread,
// the tile loop over K.
#define TILE 4
__global__ void int8_gemm_tiled(int* C, const signed char* A, const signed char* B, int N) {
    __shared__ int As[TILE][TILE];
    __shared__ int Bs[TILE][TILE];
    int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
    int acc = 0;
    for (int k0 = 0; k0 < N; k0 += TILE) {
        As[threadIdx.y][threadIdx.x] = A[row * N + k0 + threadIdx.x];
        Bs[threadIdx.y][threadIdx.x] = B[(k0 + threadIdx.y) * N + col];
        __syncthreads();
        for (int k = 0; k < TILE; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
        __syncthreads();
    }
    C[row * N + col] = acc;
}
