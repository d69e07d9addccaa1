__global__ void k(int* o) {
#pragma clang __debug crash
  o[0] = 1;
}
