// One explicit Euler step for particles stored as float4 (position and inverse mass, velocity and charge), as
// n-body samples lay them out: a constant field accelerates each particle by charge times inverse mass.
__global__ void particles_float4(float4* pos, float4* vel, float dt, float field, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pos[i], v = vel[i];
    v.y += dt * field * v.w * p.w;
    p.x += dt * v.x;
    p.y += dt * v.y;
    p.z += dt * v.z;
    pos[i] = p;
    vel[i] = v;
}
