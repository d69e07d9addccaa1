// The float maximum CUDA has no atomic for, written the usual way: a compare-and-swap loop on the float's
// bits, retried until no other thread changed the word in between. Each thread offers |x| and -|x|, so the
// results are the largest magnitude and the largest non-positive value, whatever the order.
__device__ __forceinline__ float atomicMaxFloat(float* address, float value) {
    int* word = (int*)address;
    int old = *word, assumed;
    do {
        assumed = old;
        old = atomicCAS(word, assumed, __float_as_int(fmaxf(value, __int_as_float(assumed))));
    } while (assumed != old);
    return __int_as_float(old);
}

__global__ void cas_float_max(const float* x, float* result, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicMaxFloat(&result[0], fabsf(x[i]));
        atomicMaxFloat(&result[1], -fabsf(x[i]));
    }
}
