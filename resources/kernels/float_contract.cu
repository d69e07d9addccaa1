// Where CUDA fuses a product into the add that uses it, and where it does not. Block 0: a product kept in a
// variable and added in the next statement (fused); block 1: a value minus a product (fused, the product
// negated); block 2: __fmul_rn, which CUDA never fuses. Thread t of block k works on a[t], b[t] and c[4k + t].
__global__ void float_contract(const float* a, const float* b, const float* c, float* out) {
    int t = threadIdx.x;
    float x = a[t], y = b[t], z = c[blockIdx.x * 4 + t];
    float result;
    if (blockIdx.x == 0) {
        float product = x * y;
        result = product + z;
    } else if (blockIdx.x == 1) {
        result = z - x * y;
    } else {
        result = __fmul_rn(x, y) + z;
    }
    out[blockIdx.x * 4 + t] = result;
}
