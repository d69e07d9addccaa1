// Stream compaction by warp votes: each warp keeps its positive elements, in order, at the start of its own
// segment of out (a ballot of the lanes that keep one, each lane's place the count of keepers below it), and
// writes how many it kept. Also each warp's sum by __reduce_add_sync and whether all its elements are even.
__global__ void vote_compact(const int* in, int* out, int* kept, int* sums, int* even) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int lane = threadIdx.x % warpSize, warp = i / warpSize;
    int v = in[i];
    unsigned keepers = __ballot_sync(0xffffffff, v > 0);
    if (v > 0) out[warp * warpSize + __popc(keepers & ((1u << lane) - 1))] = v;
    if (lane == 0) kept[warp] = __popc(keepers);
    int sum = __reduce_add_sync(0xffffffff, v);
    int allEven = __all_sync(0xffffffff, v % 2 == 0);
    if (lane == 1) sums[warp] = sum;
    if (lane == 2) even[warp] = allEven;
}
