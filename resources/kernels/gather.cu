// Gather: out[i] = src[idx[i]].
__global__ void gather(const int* src, const int* idx, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = src[idx[i]];
}
