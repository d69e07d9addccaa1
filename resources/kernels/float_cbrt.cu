// The edge of a cube from its volume, signed volumes included: cbrtf, exact on perfect cubes, from
// subnormal volumes to the largest float.
__global__ void float_cbrt(const float* volume, float* edge) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    edge[i] = cbrtf(volume[i]);
}
