// A loop whose trip count differs per lane: the sum of the first cnt[i] weights.
__global__ void loop_per_lane(const int* cnt, const int* w, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int s = 0;
        int c = cnt[i];
#pragma unroll 1
        for (int k = 0; k < c; ++k) s += w[k];
        out[i] = s;
    }
}
