// Mandelbrot escape counts in Q16.16 fixed point, as integer-only demos compute them: each product is taken
// in 64 bits and shifted back, and the loop stops when |z|^2 passes 4 or after 24 iterations.
__global__ void mandelbrot_fixed(int* counts, int width, int x0, int y0, int step) {
    int px = threadIdx.x, py = blockIdx.x;
    int cr = x0 + px * step, ci = y0 + py * step;
    int zr = 0, zi = 0, k = 0;
    while (k < 24) {
        long long rr = (long long)zr * zr, ii = (long long)zi * zi;
        if (rr + ii > (4LL << 32)) break;
        int next = (int)((rr - ii) >> 16) + cr;
        zi = (int)(((long long)zr * zi) >> 15) + ci;
        zr = next;
        ++k;
    }
    counts[py * width + px] = k;
}
