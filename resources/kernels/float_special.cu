// Special values: zeros of both signs, infinities, NaN, subnormals, overflow, underflow and ties to even
// through a sum, a product, a difference, a minimum and four comparisons (ordered and unordered) per pair.
__global__ void float_special(const float* a, const float* b, float* r, int* flags) {
    int i = threadIdx.x;
    float x = a[i], y = b[i];
    r[i] = x + y;
    r[i + 16] = x * y;
    r[i + 32] = x - y;
    r[i + 48] = fminf(x, y);
    flags[i] = (x < y) + 2 * (x == y) + 4 * (x != y) + 8 * !(x >= y);
}
