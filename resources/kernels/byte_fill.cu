// A memset-style fill over a size_t count of bytes with a grid-stride loop, writing a pattern that depends
// on the position, as fill and initialisation kernels do.
__global__ void byte_fill(unsigned char* dst, unsigned char value, size_t count) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < count; i += (size_t)gridDim.x * blockDim.x)
        dst[i] = (unsigned char)(value + (i & 7));
}
