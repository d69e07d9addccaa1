// Nested if/else: classifies values into -2 .. 2.
__global__ void nested_if(const int* a, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = a[i];
        int c;
        if (v > 0) {
            if (v > 10)
                c = 2 * v;
            else
                c = v + 1;
        } else {
            if (v < -10)
                c = v - 1;
            else
                c = -v;
        }
        out[i] = c;
    }
}
