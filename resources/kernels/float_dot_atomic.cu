// Dot product: each thread adds x[i] * y[i] into sum[0] with a float atomicAdd. The machine's lanes add in
// lane order, warps one after another; the values here keep every partial sum exact, so the result does
// not depend on that order (the host executor's threads add in any order).
__global__ void float_dot_atomic(const float* x, const float* y, float* sum) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    atomicAdd(&sum[0], x[i] * y[i]);
}
