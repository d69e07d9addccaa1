// Float matrix multiply, 3 x 3: thread (col, row) computes c[row][col] = sum over k of a[row][k] * b[k][col].
__global__ void float_matmul(const float* a, const float* b, float* c) {
    int col = threadIdx.x, row = threadIdx.y;
    float acc = 0.0f;
#pragma unroll 1
    for (int k = 0; k < 3; ++k) acc += a[row * 3 + k] * b[k * 3 + col];
    c[row * 3 + col] = acc;
}
