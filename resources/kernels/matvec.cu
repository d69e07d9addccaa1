// Matrix-vector product, 4 x 4: thread (x, y) multiplies m[y][x] by v[x]; the 4 lanes of row y sum by shuffles.
__global__ void matvec(const int* m, const int* v, int* y) {
    int col = threadIdx.x;
    int row = threadIdx.y;
    int p = m[row * 4 + col] * v[col];
    p += __shfl_xor_sync(QGPU_FULL_MASK, p, 1);
    p += __shfl_xor_sync(QGPU_FULL_MASK, p, 2);
    if (col == 0) y[row] = p;
}
