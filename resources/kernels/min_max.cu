// Signed min and max, and unsigned min of the same bits.
__global__ void min_max(const int* a, const int* b, int* mn, int* mx, unsigned* umn, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        mn[i] = min(a[i], b[i]);
        mx[i] = max(a[i], b[i]);
        umn[i] = min((unsigned)a[i], (unsigned)b[i]);
    }
}
