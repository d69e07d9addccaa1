// Expression language: out[0] += dot(a, b) in fp32 (out starts at 0), n <= 32: a block of exactly n threads,
// one product each, added by atomicAdd in the machine's lane order.
__global__ void op_f_dot_small(const float* a, const float* b, float* out) {
    int i = threadIdx.x;
    atomicAdd(&out[0], a[i] * b[i]);
}
