// Packed RGB pixels (uchar3: three bytes, no padding, so a pixel may straddle two words): each thread
// inverts its pixel's colours and writes its brightest channel.
__global__ void uchar3_invert(uchar3* pixels, unsigned char* brightest, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    uchar3 p = pixels[i];
    brightest[i] = max(p.x, max(p.y, p.z));
    pixels[i] = make_uchar3(255 - p.x, 255 - p.y, 255 - p.z);
}
