// The information content of each probability in bits, -log2(p): one logarithm a thread, probabilities from
// 1 down to below the smallest normal float.
__global__ void float_log(const float* p, float* bits) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    bits[i] = -log2f(p[i]);
}
