// Transpose with a 2D block: thread (x, y) moves in[y][x] to out[x][y]; in is rows x cols.
__global__ void transpose_block(const int* in, int* out, int rows, int cols) {
    int x = threadIdx.x;
    int y = threadIdx.y;
    if (x < cols && y < rows) out[x * rows + y] = in[y * cols + x];
}
