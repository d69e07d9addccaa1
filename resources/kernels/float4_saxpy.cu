// saxpy over float4 elements, as bandwidth-bound kernels vectorise it: one 16-byte load of x and of y per
// thread, four multiply-adds, one 16-byte store.
__global__ void float4_saxpy(int n4, float a, const float4* x, float4* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n4) return;
    float4 xv = x[i], yv = y[i];
    yv.x = a * xv.x + yv.x;
    yv.y = a * xv.y + yv.y;
    yv.z = a * xv.z + yv.z;
    yv.w = a * xv.w + yv.w;
    y[i] = yv;
}
