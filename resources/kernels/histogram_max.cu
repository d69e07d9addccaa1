// A histogram that keeps, per bin, the count and the largest and smallest value that fell in it: atomicAdd
// for the count, atomicMax and atomicMin for the extremes, first in a block's shared bins, then merged into
// the global ones. Every result is independent of the order the threads arrive in.
__global__ void histogram_max(const int* keys, const int* values, int* count, int* largest, int* smallest, int n) {
    __shared__ int binCount[8], binMax[8], binMin[8];
    int t = threadIdx.x;
    if (t < 8) {
        binCount[t] = 0;
        binMax[t] = -2147483647 - 1;
        binMin[t] = 2147483647;
    }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        int bin = keys[i] & 7;
        atomicAdd(&binCount[bin], 1);
        atomicMax(&binMax[bin], values[i]);
        atomicMin(&binMin[bin], values[i]);
    }
    __syncthreads();
    if (t < 8) {
        atomicAdd(&count[t], binCount[t]);
        atomicMax(&largest[t], binMax[t]);
        atomicMin(&smallest[t], binMin[t]);
    }
}
