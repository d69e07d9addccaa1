// RGBA pixels to grey levels and back, as image kernels write them: a uchar4 pixel is one 4-byte load,
// the grey level a weighted sum (weights summing to 256) in an unsigned char, and a second image whose
// pixels are the grey level with the alpha kept.
__global__ void uchar4_gray(const uchar4* rgba, unsigned char* gray, uchar4* grayRgba, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar4 p = rgba[i];
    unsigned char g = (unsigned char)((p.x * 77 + p.y * 150 + p.z * 29) >> 8);
    gray[i] = g;
    grayRgba[i] = make_uchar4(g, g, g, p.w);
}
