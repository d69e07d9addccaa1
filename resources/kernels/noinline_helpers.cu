// Device helpers kept as functions with __noinline__, as larger code bases keep them to hold down code
// size: a clamp, a linear interpolation and a bucket lookup, each called from more than one place.
__device__ __noinline__ int clamp_int(int v, int lo, int hi) { return v < lo ? lo : v > hi ? hi : v; }
__device__ __noinline__ float lerp(float a, float b, float t) { return a + t * (b - a); }
__device__ __noinline__ int bucket_of(int v, int width) { return clamp_int(v / width, 0, 3); }

__global__ void noinline_helpers(const int* values, const float* weights, int* buckets, float* blended, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int v = values[i];
    buckets[i] = bucket_of(v, 25) + 4 * clamp_int(v, -10, 10);
    blended[i] = lerp(weights[i], weights[n - 1 - i], 0.25f);
}
