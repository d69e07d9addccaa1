// A block-wide inclusive scan in dynamic shared memory, as CUDA samples size it at launch: one extern
// __shared__ buffer carved into the running sums and the running counts of positive inputs, with
// Hillis-Steele steps that read, wait, then write. Each block also counts its positive inputs.
__global__ void dynamic_shared_scan(const int* in, int* out, int* positives) {
    extern __shared__ int buffer[];
    int* sums = buffer;
    int* flags = buffer + blockDim.x;
    int t = threadIdx.x, i = blockIdx.x * blockDim.x + t;
    sums[t] = in[i];
    flags[t] = in[i] > 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset *= 2) {
        int a = t >= offset ? sums[t - offset] : 0;
        int b = t >= offset ? flags[t - offset] : 0;
        __syncthreads();
        sums[t] += a;
        flags[t] += b;
        __syncthreads();
    }
    out[i] = sums[t];
    if (t == blockDim.x - 1) positives[blockIdx.x] = flags[t];
}
