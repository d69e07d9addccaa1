// The heading of each 2-D vector, as a polar conversion computes it: atan2f(y, x) in [-pi, pi], in every
// quadrant, on the axes and for a vector much longer along one axis than the other.
__global__ void float_atan2(const float* x, const float* y, float* heading) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    heading[i] = atan2f(y[i], x[i]);
}
