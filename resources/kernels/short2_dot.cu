// A dot product of 16-bit fixed-point vectors read as short2 pairs (one 4-byte load for two samples), as
// audio and quantized kernels write it: each thread multiplies its pair, a warp sums with shuffles, and
// lane 0 adds the warp's sum to the result. Each thread also writes its pair scaled down, saturated to
// the short range.
__global__ void short2_dot(const short2* a, const short2* b, short2* scaled, int* dot, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = 0;
    if (i < n) {
        short2 x = a[i], y = b[i];
        v = x.x * y.x + x.y * y.y;
        scaled[i] = make_short2((short)max(-32768, min(32767, x.x * y.x >> 4)),
                                (short)max(-32768, min(32767, x.y * y.y >> 4)));
    }
    for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
    if (threadIdx.x % warpSize == 0) atomicAdd(dot, v);
}
