// Several blocks: global index blockIdx.x * blockDim.x + threadIdx.x, tagged with the block number.
__global__ void multi_block(const int* a, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i] + 1000 * (int)blockIdx.x;
}
