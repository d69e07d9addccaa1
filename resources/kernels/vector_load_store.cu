// Whole int2 and int4 values: one vector load or store each, in global and shared memory.
__global__ void vector_load_store(const int* pairs, const int* quads, int* swapped, int* rotated) {
    __shared__ int2 staged[4];
    int i = threadIdx.x;
    int2 p = reinterpret_cast<const int2*>(pairs)[i];
    staged[i] = make_int2(p.y, p.x + p.y);
    __syncthreads();
    reinterpret_cast<int2*>(swapped)[i] = staged[3 - i];
    int4 q = reinterpret_cast<const int4*>(quads)[i];
    reinterpret_cast<int4*>(rotated)[i] = make_int4(q.w, q.x, q.y, q.z - q.w);
}
