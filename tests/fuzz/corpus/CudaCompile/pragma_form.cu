#define P(x) _Pragma(#x)
__global__ void k(int* o) {
P(clang __debug crash)
  o[0] = 1;
}
