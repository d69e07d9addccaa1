// CUDA's cooperative groups, for the machine: the thread block, tiles of the 4-lane warp (tiled_partition
// of 1, 2 or 4 threads), coalesced groups, and cg::reduce, built from __syncthreads, the shuffles and the
// votes. The same source compiles in a kernel on the machine (the compiler's sandbox serves it for
// <cooperative_groups.h>) and on a host (the host executor puts this folder on its include path). No include
// guard: the host executor includes it once into each kernel's namespace. <cooperative_groups/reduce.h> is
// empty: cg::reduce is here.
namespace cooperative_groups {

class thread_block {
public:
    __device__ void sync() const { __syncthreads(); }
    __device__ unsigned size() const { return blockDim.x * blockDim.y * blockDim.z; }
    __device__ unsigned num_threads() const { return size(); }
    __device__ unsigned thread_rank() const { return __qgpu_block_rank(); }
};
__device__ __forceinline__ thread_block this_thread_block() { return thread_block(); }
__device__ __forceinline__ void sync(const thread_block& block) { block.sync(); }

// N consecutive threads of a warp (N = 1, 2 or 4): tile rank, shuffles within the tile, votes of its lanes.
template <unsigned N>
class thread_block_tile {
    static_assert(N == 1 || N == 2 || N == 4,
                  "a tile is 1, 2 or 4 threads: the machine's warp has 4 lanes (tiles of 8 to 32 threads are "
                  "not available yet)");

public:
    __device__ static constexpr unsigned size() { return N; }
    __device__ static constexpr unsigned num_threads() { return N; }
    __device__ unsigned thread_rank() const { return __qgpu_lane() % N; }
    __device__ unsigned meta_group_rank() const { return __qgpu_block_rank() / N; }
    __device__ unsigned meta_group_size() const { return (blockDim.x * blockDim.y * blockDim.z + N - 1) / N; }
    __device__ void sync() const { __syncwarp(tileMask()); }
    template <class T>
    __device__ T shfl(T value, int source) const {
        return __shfl_sync(tileMask(), value, source, N);
    }
    template <class T>
    __device__ T shfl_down(T value, unsigned delta) const {
        return __shfl_down_sync(tileMask(), value, delta, N);
    }
    template <class T>
    __device__ T shfl_up(T value, unsigned delta) const {
        return __shfl_up_sync(tileMask(), value, delta, N);
    }
    template <class T>
    __device__ T shfl_xor(T value, int laneMask) const {
        return __shfl_xor_sync(tileMask(), value, laneMask, N);
    }
    // The tile's lanes' votes, bit r for tile rank r.
    __device__ unsigned ballot(int predicate) const { return __ballot_sync(tileMask(), predicate) >> tileBase(); }
    __device__ int any(int predicate) const { return ballot(predicate) != 0u; }
    __device__ int all(int predicate) const { return ballot(!predicate) == 0u; }

private:
    __device__ unsigned tileBase() const { return __qgpu_lane() / N * N; }
    __device__ unsigned tileMask() const { return ((1u << N) - 1u) << tileBase(); }
};

template <unsigned N>
__device__ __forceinline__ thread_block_tile<N> tiled_partition(const thread_block&) {
    return thread_block_tile<N>();
}
__device__ thread_block_tile<4> tiled_partition(const thread_block&, unsigned size)
    __attribute__((unavailable("give the tile size as a constant: tiled_partition<N>(block) with N = 1, 2 or 4")));

// The warp's active threads, ranked in lane order.
class coalesced_group {
public:
    __device__ coalesced_group() : m_lanes(__activemask()) {}
    __device__ unsigned size() const { return (unsigned)__popc(m_lanes); }
    __device__ unsigned num_threads() const { return size(); }
    __device__ unsigned thread_rank() const { return (unsigned)__popc(m_lanes & ((1u << __qgpu_lane()) - 1u)); }
    __device__ void sync() const { __syncwarp(m_lanes); }
    __device__ unsigned ballot(int predicate) const {  // bit r for the thread of rank r
        unsigned votes = __ballot_sync(m_lanes, predicate), packed = 0u;
        for (unsigned lane = 0, rank = 0; lane < (unsigned)warpSize; ++lane)
            if (m_lanes >> lane & 1u) packed |= (votes >> lane & 1u) << rank++;
        return packed;
    }
    __device__ int any(int predicate) const { return __ballot_sync(m_lanes, predicate) != 0u; }
    __device__ int all(int predicate) const { return __ballot_sync(m_lanes, !predicate) == 0u; }

private:
    unsigned m_lanes;
};
__device__ __forceinline__ coalesced_group coalesced_threads() { return coalesced_group(); }

// A grid-wide group: refused where its sync is called (blocks run one after another on this machine).
class grid_group {
public:
    __device__ void sync() const
        __attribute__((unavailable("grid-wide sync is not available: the machine runs one block after another; "
                                   "split the kernel into two launches")));
};
__device__ __forceinline__ grid_group this_grid() { return grid_group(); }

// cg::reduce's operations.
template <class T>
struct plus {
    __device__ T operator()(T a, T b) const { return a + b; }
};
template <class T>
struct less {  // cg::reduce with less gives the minimum
    __device__ T operator()(T a, T b) const { return b < a ? b : a; }
};
template <class T>
struct greater {  // and with greater the maximum
    __device__ T operator()(T a, T b) const { return b > a ? b : a; }
};
template <class T>
struct bit_and {
    __device__ T operator()(T a, T b) const { return a & b; }
};
template <class T>
struct bit_or {
    __device__ T operator()(T a, T b) const { return a | b; }
};
template <class T>
struct bit_xor {
    __device__ T operator()(T a, T b) const { return a ^ b; }
};

// op over the tile's values, by butterfly shuffles: every thread of the tile gets the result.
template <unsigned N, class T, class Op>
__device__ __forceinline__ T reduce(const thread_block_tile<N>& tile, T value, Op op) {
    for (unsigned offset = N / 2; offset > 0; offset /= 2) value = op(value, tile.shfl_xor(value, (int)offset));
    return value;
}

}  // namespace cooperative_groups
