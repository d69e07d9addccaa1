// Matrix-matrix product, 4 x 4 by 4 x 4: thread (x, y) computes c[y][x].
__global__ void matmul(const int* a, const int* b, int* c) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    int acc = 0;
    for (int k = 0; k < 4; ++k) acc += a[row * 4 + k] * b[k * 4 + col];
    c[row * 4 + col] = acc;
}
