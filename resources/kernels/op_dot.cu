// Expression language: out[0] += dot(a, b) (out starts at 0). Any 1D launch: per-thread partial sums over a
// grid-stride loop, one atomicAdd each.
__global__ void op_dot(const int* a, const int* b, int* out, int n) {
    int stride = blockDim.x * gridDim.x;
    int acc = 0;
#pragma unroll 1
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) acc += a[i] * b[i];
    atomicAdd(&out[0], acc);
}
