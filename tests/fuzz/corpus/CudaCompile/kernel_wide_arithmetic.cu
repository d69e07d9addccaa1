// 64-bit arithmetic Clang emits for 32-bit results: a product's high word and a fixed-point product
// shifted back, and indices computed in long (address math the machine narrows to 32-bit words).
__global__ void wide_arithmetic(const int* a, const int* b, int* products, int* fixed, int* gathered, int n) {
    int t = threadIdx.x;
    long long p = (long long)a[t] * b[t];
    products[2 * t] = (int)p;
    products[2 * t + 1] = (int)(p >> 32);
    fixed[t] = (int)(((long long)a[t] * 3000) >> 16);
    long w = n;
    long row = t >> 2;
    long i = row * w + (t & 3);
    gathered[t] = a[i & ~1L] + b[(i >> 1) + 1];
}
