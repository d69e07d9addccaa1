__global__ void k(int* o) {
#pragma unroll 1000000
 for (int i = 0; i < o[1]; ++i) o[i] = i;
}
