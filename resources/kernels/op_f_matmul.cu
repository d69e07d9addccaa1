// Expression language: out = a b in fp32 with a rows x inner, b inner x cols (row-major). 2D launch covering
// cols (x) by rows (y) threads: thread (x, y) computes out[y][x], its sum in order of k.
__global__ void op_f_matmul(const float* a, const float* b, float* out, int rows, int inner, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) {
        float acc = 0.0f;
#pragma unroll 1
        for (int k = 0; k < inner; ++k) acc += a[r * inner + k] * b[k * cols + c];
        out[r * cols + c] = acc;
    }
}
