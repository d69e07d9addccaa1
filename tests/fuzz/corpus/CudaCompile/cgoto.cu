__global__ void k(int* o) {
  void* t[] = {&&a, &&b};
  goto *t[o[0] & 1];
a: o[1] = 1; return;
b: o[1] = 2;
}
