// y = A x for a sparse matrix in CSR form, one thread per row: rows of different lengths make the lanes of
// a warp run their loops for different counts.
__global__ void csr_spmv(const int* rowStart, const int* column, const int* value, const int* x, int* y, int rows) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    int sum = 0;
    for (int k = rowStart[r]; k < rowStart[r + 1]; ++k) sum += value[k] * x[column[k]];
    y[r] = sum;
}
