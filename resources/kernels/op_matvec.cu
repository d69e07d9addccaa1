// Expression language: out = m v with m rows x cols (row-major), any 1D launch: a thread per row (grid-stride).
__global__ void op_matvec(const int* m, const int* v, int* out, int rows, int cols) {
    int stride = blockDim.x * gridDim.x;
#pragma unroll 1
    for (int r = blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += stride) {
        int acc = 0;
#pragma unroll 1
        for (int c = 0; c < cols; ++c) acc += m[r * cols + c] * v[c];
        out[r] = acc;
    }
}
