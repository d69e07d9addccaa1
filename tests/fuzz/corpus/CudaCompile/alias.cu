__device__ int f(int x) { return x + 1; }
__device__ int g(int x) __attribute__((alias("_Z1fi")));
__global__ void k(int* o) { o[0] = g(o[1]); }
