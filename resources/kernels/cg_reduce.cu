// Cooperative groups: the block split into tiles of the 4-lane warp; each tile's sum and maximum by
// cg::reduce, written by the tile's first two threads at the tile's meta-group rank, and each thread's view
// of its tile: the ballot of the positive values plus 16 times its neighbour's value (shfl_down).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
namespace cg = cooperative_groups;

__global__ void cg_reduce(const int* in, int* sums, int* maxima, int* views) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<4> tile = cg::tiled_partition<4>(block);
    int i = blockIdx.x * block.size() + block.thread_rank();
    int v = in[i];
    int sum = cg::reduce(tile, v, cg::plus<int>());
    int largest = cg::reduce(tile, v, cg::greater<int>());
    int group = blockIdx.x * tile.meta_group_size() + tile.meta_group_rank();
    if (tile.thread_rank() == 0) sums[group] = sum;
    if (tile.thread_rank() == 1) maxima[group] = largest;
    views[i] = (int)tile.ballot(v > 0) + 16 * tile.shfl_down(v, 1);
}
