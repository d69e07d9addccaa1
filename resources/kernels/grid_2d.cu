// 2D grid of 2D blocks: out[y][x] = 100 * x + y over a width x height image.
__global__ void grid_2d(int* out, int width, int height) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height) out[y * width + x] = 100 * x + y;
}
