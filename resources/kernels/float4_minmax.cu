// float4 vectors, as vectorised CUDA code uses them: each thread loads four floats of x and of y at once
// (one 16-byte vector access each) and stores y = (-x.x, |x.y|, min(x.z, y.z), max(x.w, y.w)) as one
// float4; thread 0 also stores the launch's thread count, from blockDim as a dim3 and gridDim.
__global__ void float4_minmax(const float4* x, float4* y, unsigned* threads) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 u = x[i], v = y[i];
    y[i] = make_float4(-u.x, fabsf(u.y), fminf(u.z, v.z), fmaxf(u.w, v.w));
    dim3 block = blockDim;
    if (i == 0) threads[0] = block.x * block.y * block.z * gridDim.x;
}
