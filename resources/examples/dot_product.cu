// Dot product of two vectors, one thread per element: out[0] = a . b.
// The same launch spec (dot_product.json) drives the hand-written dot_product.qasm.
__global__ void dot_product(const int* a, const int* b, int* out) {
    int i = threadIdx.x;
    atomicAdd(&out[0], a[i] * b[i]);
}
