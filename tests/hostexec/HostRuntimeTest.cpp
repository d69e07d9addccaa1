// The host executor's CUDA runtime itself (host_cuda.h): shuffle modes and widths as docs/isa.md defines
// them, barriers across warps, early exit, thread indexing, atomics, argument checking.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "host_cuda.h"

namespace rt {
QGPU_CUDA_PRELUDE

// v = 10*t + 1; out = the shuffle selected by `mode` (0 idx, 1 up, 2 down, 3 xor) with operand b.
__global__ void shuffle(int* out, int mode, int b, int width) {
    int t = int(threadIdx.x);
    int v = 10 * t + 1;
    int r = 0;
    if (mode == 0) r = __shfl_sync(QGPU_FULL_MASK, v, b, width);
    if (mode == 1) r = __shfl_up_sync(QGPU_FULL_MASK, v, unsigned(b), width);
    if (mode == 2) r = __shfl_down_sync(QGPU_FULL_MASK, v, unsigned(b), width);
    if (mode == 3) r = __shfl_xor_sync(QGPU_FULL_MASK, v, b, width);
    out[t] = r;
}

// Reverses the block through shared memory; the first warp is slow to write, so only a real barrier
// makes the second warp read the new values.
__global__ void barrierReverse(const int* in, int* out) {
    __shared__ int s[32];
    unsigned t = threadIdx.x;
    if (t < 4) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    s[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = s[blockDim.x - 1 - t];
}

// Threads past n leave before the barriers; the rest must not wait for them.
__global__ void earlyExit(int* out, int n) {
    __shared__ int s[32];
    int t = int(threadIdx.x);
    if (t >= n) return;
    s[t] = t + 1;
    __syncthreads();
    __syncwarp();
    out[t] = s[n - 1 - t];
}

// Linear thread index, lane and warp of a 3D block, and lane 0 of the warp via a shuffle.
__global__ void indexing(int* linear, int* lane0) {
    int t = int(threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y);
    int c = int(blockIdx.x + blockIdx.y * gridDim.x);
    int n = int(blockDim.x * blockDim.y * blockDim.z);
    linear[c * n + t] = int(threadIdx.x) + 10 * int(threadIdx.y) + 100 * int(threadIdx.z) + 1000 * c;
    lane0[c * n + t] = __shfl_sync(QGPU_FULL_MASK, t, 0);
}

// Tickets from one counter are a permutation; an unsigned counter counts down through zero.
__global__ void tickets(int* ctr, int* seen, unsigned* down) {
    int old = atomicAdd(&ctr[0], 1);
    atomicAdd(&seen[old], 1);
    atomicSub(&down[0], 1u);
    atomicSub(&ctr[1], 2);
}

__global__ void twoArgs(int* /*out*/, int /*n*/) {}

}  // namespace rt

namespace {

qgpu::KernelArg array(const std::string& name, std::vector<int64_t> values) { return {name, true, std::move(values)}; }
qgpu::KernelArg zeros(const std::string& name, int n) { return {name, true, std::vector<int64_t>(size_t(n), 0)}; }
qgpu::KernelArg scalar(const std::string& name, int32_t v) { return {name, false, {v}}; }

qgpu::LaunchSpec spec(qgpu::Dim3 grid, qgpu::Dim3 block, std::vector<qgpu::KernelArg> args) {
    qgpu::LaunchSpec s;
    s.grid = grid;
    s.block = block;
    s.args = std::move(args);
    return s;
}

std::vector<int64_t> shuffle(int threads, int mode, int b, int width) {
    auto out = qgpu_cuda::launch(
        &rt::shuffle,
        spec({1}, {threads}, {zeros("out", threads), scalar("mode", mode), scalar("b", b), scalar("width", width)}));
    return out.at(0).second;
}

using V = std::vector<int64_t>;

TEST(HostRuntime, ShuffleIdx) {
    EXPECT_EQ(shuffle(8, 0, 2, 4), (V{21, 21, 21, 21, 61, 61, 61, 61}));
    EXPECT_EQ(shuffle(8, 0, 1, 2), (V{11, 11, 31, 31, 51, 51, 71, 71}));
    EXPECT_EQ(shuffle(8, 0, 3, 2), (V{11, 11, 31, 31, 51, 51, 71, 71}));  // b & (W-1)
    EXPECT_EQ(shuffle(8, 0, 6, 4), (V{21, 21, 21, 21, 61, 61, 61, 61}));
    EXPECT_EQ(shuffle(4, 0, 3, 1), (V{1, 11, 21, 31}));
}

TEST(HostRuntime, ShuffleUp) {
    EXPECT_EQ(shuffle(8, 1, 1, 4), (V{1, 1, 11, 21, 41, 41, 51, 61}));
    EXPECT_EQ(shuffle(8, 1, 2, 4), (V{1, 11, 1, 11, 41, 51, 41, 51}));
    EXPECT_EQ(shuffle(8, 1, 1, 2), (V{1, 1, 21, 21, 41, 41, 61, 61}));
    EXPECT_EQ(shuffle(4, 1, 0, 4), (V{1, 11, 21, 31}));
}

TEST(HostRuntime, ShuffleDown) {
    EXPECT_EQ(shuffle(8, 2, 2, 4), (V{21, 31, 21, 31, 61, 71, 61, 71}));
    EXPECT_EQ(shuffle(8, 2, 1, 4), (V{11, 21, 31, 31, 51, 61, 71, 71}));
    EXPECT_EQ(shuffle(8, 2, 1, 2), (V{11, 11, 31, 31, 51, 51, 71, 71}));
    EXPECT_EQ(shuffle(4, 2, 33, 4), (V{11, 21, 31, 31}));  // b & 31
}

TEST(HostRuntime, ShuffleXor) {
    EXPECT_EQ(shuffle(8, 3, 3, 4), (V{31, 21, 11, 1, 71, 61, 51, 41}));
    EXPECT_EQ(shuffle(8, 3, 1, 2), (V{11, 1, 31, 21, 51, 41, 71, 61}));
    // PTX bfly with a segment: lane ^ b may reach an earlier segment (valid), never a later one.
    EXPECT_EQ(shuffle(8, 3, 2, 2), (V{1, 11, 1, 11, 41, 51, 41, 51}));
    EXPECT_EQ(shuffle(4, 3, 4, 4), (V{1, 11, 21, 31}));
}

TEST(HostRuntime, ShufflePartialWarpReadsOwnValueForAbsentLanes) {
    // Block of 6: the second warp has lanes 0 and 1 only.
    EXPECT_EQ(shuffle(6, 3, 2, 4), (V{21, 31, 1, 11, 41, 51}));
    EXPECT_EQ(shuffle(6, 2, 1, 4), (V{11, 21, 31, 31, 51, 51}));
    EXPECT_EQ(shuffle(6, 0, 1, 4), (V{11, 11, 11, 11, 51, 51}));
}

TEST(HostRuntime, BadShuffleWidthThrows) { EXPECT_THROW(shuffle(4, 0, 1, 8), std::runtime_error); }

TEST(HostRuntime, BarrierAcrossWarpsAndBlocks) {
    V in;
    for (int i = 0; i < 16; ++i) in.push_back(i * 3);
    auto out = qgpu_cuda::launch(&rt::barrierReverse, spec({2}, {8}, {array("in", in), zeros("out", 16)}));
    EXPECT_EQ(out.at(0).second, in);
    EXPECT_EQ(out.at(1).second, (V{21, 18, 15, 12, 9, 6, 3, 0, 45, 42, 39, 36, 33, 30, 27, 24}));
}

TEST(HostRuntime, ExitedThreadsCountAsArrived) {
    auto out = qgpu_cuda::launch(&rt::earlyExit, spec({1}, {10}, {zeros("out", 10), scalar("n", 6)}));
    EXPECT_EQ(out.at(0).second, (V{6, 5, 4, 3, 2, 1, 0, 0, 0, 0}));
}

TEST(HostRuntime, ThreadIndexingIn3DBlocksAndGrids) {
    // Block (3, 2, 2) = 12 threads, grid (2, 2): t = x + 3y + 6z, warps of t/4.
    auto out = qgpu_cuda::launch(&rt::indexing, spec({2, 2}, {3, 2, 2}, {zeros("linear", 48), zeros("lane0", 48)}));
    V linear, lane0;
    for (int c = 0; c < 4; ++c)
        for (int z = 0; z < 2; ++z)
            for (int y = 0; y < 2; ++y)
                for (int x = 0; x < 3; ++x) {
                    int t = x + 3 * y + 6 * z;
                    linear.push_back(x + 10 * y + 100 * z + 1000 * c);
                    lane0.push_back(t & ~3);
                }
    EXPECT_EQ(out.at(0).second, linear);
    EXPECT_EQ(out.at(1).second, lane0);
}

TEST(HostRuntime, AtomicsAcrossBlocks) {
    auto out =
        qgpu_cuda::launch(&rt::tickets, spec({4}, {32}, {zeros("ctr", 2), zeros("seen", 128), zeros("down", 1)}));
    EXPECT_EQ(out.at(0).second, (V{128, -256}));
    EXPECT_EQ(out.at(1).second, V(128, 1));
    EXPECT_EQ(out.at(2).second, (V{-128}));
}

TEST(HostRuntime, ArgumentsMustFitTheParameters) {
    EXPECT_THROW(qgpu_cuda::launch(&rt::twoArgs, spec({1}, {4}, {zeros("out", 4)})), std::runtime_error);
    EXPECT_THROW(qgpu_cuda::launch(&rt::twoArgs, spec({1}, {4}, {scalar("out", 1), scalar("n", 1)})),
                 std::runtime_error);
    EXPECT_THROW(qgpu_cuda::launch(&rt::twoArgs, spec({1}, {4}, {zeros("out", 4), zeros("n", 1)})), std::runtime_error);
    EXPECT_NO_THROW(qgpu_cuda::launch(&rt::twoArgs, spec({1}, {4}, {zeros("out", 4), scalar("n", 1)})));
}

}  // namespace
