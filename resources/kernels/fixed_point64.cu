// Q32.32 fixed point in long long: a linear interpolation whose product keeps 128 bits and is shifted back,
// via the high word (__mul64hi) and the low word's top half.
__global__ void fixed_point64(const long long* a, const long long* b, const long long* t, long long* out) {
    int i = threadIdx.x;
    long long d = b[i] - a[i];
    long long hi = __mul64hi(d, t[i]);
    unsigned long long lo = (unsigned long long)d * (unsigned long long)t[i];
    out[i] = a[i] + (long long)(((unsigned long long)hi << 32) | (lo >> 32));
}
