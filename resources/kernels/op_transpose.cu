// Expression language: out = transpose(in), in rows x cols (row-major). 2D launch covering cols (x) by rows (y).
__global__ void op_transpose(const int* in, int* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}
