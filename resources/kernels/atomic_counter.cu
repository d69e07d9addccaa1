// Global atomic counter: how many values exceed the threshold.
__global__ void atomic_counter(const int* a, int* count, int threshold, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && a[i] > threshold) atomicAdd(&count[0], 1);
}
