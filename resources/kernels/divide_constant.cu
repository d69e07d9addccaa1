// Division and remainder by constants (Clang turns them into mul.hi), signed and unsigned.
__global__ void divide_constant(const int* a, const unsigned* b, int* q, unsigned* u) {
    int i = threadIdx.x;
    int x = a[i];
    unsigned y = b[i];
    q[i] = x / 3;
    q[i + 4] = x % 7;
    u[i] = y / 10;
    u[i + 4] = y % 10;
}
