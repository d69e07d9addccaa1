// Outer product with a 2D block: out[y][x] = u[y] * v[x].
__global__ void outer_product(const int* u, const int* v, int* out) {
    int x = threadIdx.x;
    int y = threadIdx.y;
    out[y * blockDim.x + x] = u[y] * v[x];
}
