// Float vector add: c[i] = a[i] + b[i], each sum rounded to the nearest float (ties to even).
__global__ void float_vector_add(const float* a, const float* b, float* c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    c[i] = a[i] + b[i];
}
