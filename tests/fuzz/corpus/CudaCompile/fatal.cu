__global__ void k(int* o) {
#pragma clang __debug llvm_fatal_error
  o[0] = 1;
}
