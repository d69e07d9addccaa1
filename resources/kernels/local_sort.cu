// A per-thread array in local memory, as small sorting and selection kernels keep one: each thread loads
// four values into a local array, insertion-sorts it (indices computed at run time, so the array cannot
// live in registers), and writes its median pair's mean and its values in order.
__global__ void local_sort(const int* in, int* sorted, int* median) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v[4];
    for (int k = 0; k < 4; ++k) v[k] = in[4 * i + k];
    for (int k = 1; k < 4; ++k) {
        int x = v[k], j = k - 1;
        while (j >= 0 && v[j] > x) {
            v[j + 1] = v[j];
            --j;
        }
        v[j + 1] = x;
    }
    for (int k = 0; k < 4; ++k) sorted[4 * i + k] = v[k];
    median[i] = (v[1] + v[2]) / 2;
}
