// Signed division and remainder by run-time divisors: C's rounding towards zero, the remainder with the
// dividend's sign.
__global__ void divide_signed(const int* a, const int* b, int* q, int* r) {
    int i = threadIdx.x;
    q[i] = a[i] / b[i];
    r[i] = a[i] % b[i];
}
