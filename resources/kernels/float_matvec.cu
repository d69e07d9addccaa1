// Float matrix-vector product, 4 x 4: thread r sums m[r][c] * v[c] over the columns in order.
__global__ void float_matvec(const float* m, const float* v, float* y) {
    int r = threadIdx.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int c = 0; c < 4; ++c) acc += m[r * 4 + c] * v[c];
    y[r] = acc;
}
