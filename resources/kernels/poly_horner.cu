// Polynomial evaluation by Horner's rule: out = coef[0] + coef[1] x + ... + coef[deg] x^deg.
__global__ void poly_horner(const int* coef, int deg, const int* x, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = x[i];
        int acc = 0;
#pragma unroll 1
        for (int k = deg; k >= 0; --k) acc = acc * v + coef[k];
        out[i] = acc;
    }
}
