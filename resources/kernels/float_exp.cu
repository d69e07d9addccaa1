// The exponentials of a row of scores (a softmax's numerators, with the scores already shifted by their
// maximum): e[i] = expf(x[i]) over the row, each within an ulp of e^x (qgpu_math.h).
__global__ void float_exp(const float* x, float* e) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    e[i] = expf(x[i]);
}
