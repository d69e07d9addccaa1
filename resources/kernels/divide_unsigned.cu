// Unsigned division and remainder by run-time divisors, with quotients of every size.
__global__ void divide_unsigned(const unsigned* a, const unsigned* b, unsigned* q, unsigned* r) {
    int i = threadIdx.x;
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
}
