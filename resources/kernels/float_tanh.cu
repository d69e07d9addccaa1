// The tanh activation of a recurrent cell's pre-activations, elementwise: y = tanhf(x), odd, saturating
// at +-1, and x itself for tiny x.
__global__ void float_tanh(const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = tanhf(x[i]);
}
