// A 16-bit image thresholded into a bool mask with the count of pixels above it, as the first pass of
// segmentation kernels does: ushort pixels in, bool mask and an atomic count out.
__global__ void ushort_threshold(const unsigned short* image, bool* mask, int* above, unsigned short level,
                                 int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    bool on = image[i] > level;
    mask[i] = on;
    if (on) atomicAdd(above, 1);
}
