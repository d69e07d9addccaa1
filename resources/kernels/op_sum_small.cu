// Expression language: out[0] += sum(a) (out starts at 0), n <= 32: a block of exactly n threads, one
// element each, summed by atomicAdd.
__global__ void op_sum_small(const int* a, int* out) {
    atomicAdd(&out[0], a[threadIdx.x]);
}
