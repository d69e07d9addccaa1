// Modular exponentiation by squaring with a prime modulus under 2^30, as number-theoretic transforms and
// hash kernels do it: each product needs 64 bits before the remainder brings it back.
#define MODULUS 1000000007ull
__global__ void mod_pow(const unsigned* base, const unsigned* exponent, unsigned* result, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n) return;
    unsigned long long b = base[t] % MODULUS, r = 1;
    for (unsigned e = exponent[t]; e != 0; e >>= 1) {
        if (e & 1) r = r * b % MODULUS;
        b = b * b % MODULUS;
    }
    result[t] = (unsigned)r;
}
