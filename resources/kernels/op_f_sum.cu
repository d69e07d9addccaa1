// Expression language: out[0] += sum(a) in fp32 (out starts at 0). Any 1D launch: per-thread partial sums over
// a grid-stride loop, one atomicAdd each, in the machine's lane order.
__global__ void op_f_sum(const float* a, float* out, int n) {
    int stride = blockDim.x * gridDim.x;
    float acc = 0.0f;
#pragma unroll 1
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) acc += a[i];
    atomicAdd(&out[0], acc);
}
