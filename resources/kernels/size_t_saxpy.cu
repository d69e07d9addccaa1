// y = a * x + y over a grid-stride loop whose index and bound are size_t, as library code writes it for
// arrays past 2^31 elements: the loop compares 64-bit values and steps by the whole grid.
__global__ void size_t_saxpy(size_t n, float a, const float* x, float* y) {
    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) y[i] = a * x[i] + y[i];
}
