// Host stand-in for resources/include/qgpu_cuda.h: compiles the kernels of resources/kernels as plain C++20
// and runs them with one std::thread per CUDA thread. It is an independent executor for the kernel suite:
// it shares no code with the reference interpreter or the CUDA lowering, only the launch format.
//
// Model: thread blocks run one after another, so `__shared__` (a function- or file-scope `static`) is the
// running block's shared memory. __syncthreads() is a std::barrier over the block's threads, __syncwarp()
// and the shuffles a std::barrier over the threads of one warp (4 lanes; a block's last warp can be partial).
// A thread that returns leaves both barriers (exited threads count as arrived). Shuffles follow PTX
// shfl.sync as docs/isa.md gives it. Global memory is one buffer holding the array arguments one after
// another, as on the machine. The threads, barriers and shuffles live in HostRuntime.cpp.
//
// Usage: include this header, then the kernel inside a namespace that starts with QGPU_CUDA_PRELUDE, and
// run it with qgpu_cuda::launch(&ns::kernel, launchSpec).
#pragma once

#include <atomic>
#include <bit>
#include <cstdint>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "qgpu/core/Launch.h"

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __restrict__ __restrict

#ifndef QGPU_FULL_MASK
#define QGPU_FULL_MASK 0xfu
#endif

namespace qgpu_cuda {

struct uint3 {
    unsigned x, y, z;
};

// Set by the launcher in each thread (HostRuntime.cpp).
extern thread_local uint3 threadIdx;
extern thread_local uint3 blockIdx;
extern thread_local uint3 blockDim;
extern thread_local uint3 gridDim;
inline constexpr int warpSize = 4;

namespace detail {
enum class ShuffleMode { Idx, Up, Down, Bfly };
// PTX shfl.sync for the calling lane: the warp's lanes publish their values, then each reads its source lane
// (an invalid source, or one missing from a partial warp, gives the lane its own value). HostRuntime.cpp.
int shuffle(ShuffleMode mode, int value, unsigned b, int width);
void syncBlock();
void syncWarp();
}  // namespace detail

// ---- the device header's functions ----

inline void __syncthreads() { detail::syncBlock(); }
inline void __syncwarp(unsigned /*mask*/ = QGPU_FULL_MASK) { detail::syncWarp(); }

inline int atomicAdd(int* p, int v) { return std::atomic_ref<int>(*p).fetch_add(v); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
inline int atomicSub(int* p, int v) { return std::atomic_ref<int>(*p).fetch_sub(v); }
inline unsigned atomicSub(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_sub(v); }

inline int __shfl_sync(unsigned /*mask*/, int v, int lane, int width = warpSize) {
    return detail::shuffle(detail::ShuffleMode::Idx, v, unsigned(lane), width);
}
inline int __shfl_up_sync(unsigned /*mask*/, int v, unsigned delta, int width = warpSize) {
    return detail::shuffle(detail::ShuffleMode::Up, v, delta, width);
}
inline int __shfl_down_sync(unsigned /*mask*/, int v, unsigned delta, int width = warpSize) {
    return detail::shuffle(detail::ShuffleMode::Down, v, delta, width);
}
inline int __shfl_xor_sync(unsigned /*mask*/, int v, int laneMask, int width = warpSize) {
    return detail::shuffle(detail::ShuffleMode::Bfly, v, unsigned(laneMask), width);
}

inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
// Wraps for INT_MIN like the device's neg.s32 (no undefined behaviour on the host).
inline int abs(int a) { return a < 0 ? int(0u - unsigned(a)) : a; }

inline int __popc(unsigned x) { return std::popcount(x); }
inline int __clz(int x) { return std::countl_zero(unsigned(x)); }
inline unsigned __brev(unsigned x) {
    unsigned r = 0;
    for (int i = 0; i < 32; ++i) r |= (x >> i & 1u) << (31 - i);
    return r;
}
inline int __ffs(int x) { return x == 0 ? 0 : std::countr_zero(unsigned(x)) + 1; }
inline int __mulhi(int a, int b) { return int((int64_t(a) * int64_t(b)) >> 32); }
inline unsigned __umulhi(unsigned a, unsigned b) { return unsigned((uint64_t(a) * b) >> 32); }
inline unsigned __byte_perm(unsigned a, unsigned b, unsigned s) {
    uint64_t bytes = uint64_t(b) << 32 | a;
    unsigned r = 0;
    for (int n = 0; n < 4; ++n) r |= unsigned(bytes >> (8 * (s >> (4 * n) & 7)) & 0xff) << (8 * n);
    return r;
}

struct alignas(8) int2 {
    int x, y;
};
struct alignas(16) int4 {
    int x, y, z, w;
};
struct alignas(8) uint2 {
    unsigned x, y;
};
struct alignas(16) uint4 {
    unsigned x, y, z, w;
};
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
inline uint2 make_uint2(unsigned x, unsigned y) { return {x, y}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }

// ---- the launcher ----

// Final contents of every array argument, in argument order.
using ArrayContents = std::vector<std::pair<std::string, std::vector<int32_t>>>;

namespace detail {

// Global memory as on the machine: the array arguments one after another, in argument order.
struct GlobalMemory {
    std::vector<int32_t> words;
    std::vector<int> bases;  // per argument; scalars get the address after the preceding arrays
};
GlobalMemory layOut(const qgpu::LaunchSpec& spec, size_t parameters);
ArrayContents readBack(const qgpu::LaunchSpec& spec, const GlobalMemory& memory);

// Runs the grid: blocks one after another (x fastest), one std::thread per thread of a block, each calling
// body(context) with its thread_locals set. Throws std::runtime_error on misuse (bad shuffle width).
void runGrid(const qgpu::LaunchSpec& spec, void (*body)(const void*), const void* context);

[[noreturn]] void badArgument(const qgpu::KernelArg& arg, size_t index, bool pointerParameter);

template <class P>
P kernelArgument(const qgpu::KernelArg& arg, int32_t* memory, int base, size_t index) {
    using T = std::remove_cv_t<P>;
    if constexpr (std::is_pointer_v<T>) {
        using E = std::remove_cv_t<std::remove_pointer_t<T>>;
        static_assert(std::is_same_v<E, int> || std::is_same_v<E, unsigned>,
                      "kernel pointer parameters must be int* or unsigned* (const or not)");
        if (!arg.isArray) badArgument(arg, index, true);
        return reinterpret_cast<T>(memory + base);
    } else {
        static_assert(std::is_same_v<T, int> || std::is_same_v<T, unsigned>,
                      "kernel scalar parameters must be int or unsigned");
        if (arg.isArray) badArgument(arg, index, false);
        return T(arg.values.at(0));
    }
}

template <class... P>
struct Call {
    void (*kernel)(P...);
    std::tuple<std::remove_cv_t<P>...> args;
    static void run(const void* self) {
        auto* c = static_cast<const Call*>(self);
        std::apply(c->kernel, c->args);
    }
};

template <class... P, size_t... I>
Call<P...> makeCall(void (*kernel)(P...), const qgpu::LaunchSpec& spec, GlobalMemory& memory,
                    std::index_sequence<I...>) {
    return Call<P...>{kernel, {kernelArgument<P>(spec.args[I], memory.words.data(), memory.bases[I], I)...}};
}

}  // namespace detail

// Runs `kernel` over the launch and returns the final arrays. Launch arguments map to the kernel's
// parameters in order: arrays to pointers (into a copy of the array), scalars to int/unsigned values.
// Throws std::runtime_error when they do not fit.
template <class... P>
ArrayContents launch(void (*kernel)(P...), const qgpu::LaunchSpec& spec) {
    detail::GlobalMemory memory = detail::layOut(spec, sizeof...(P));
    auto call = detail::makeCall(kernel, spec, memory, std::index_sequence_for<P...>{});
    detail::runGrid(spec, &decltype(call)::run, &call);
    return detail::readBack(spec, memory);
}

}  // namespace qgpu_cuda

// Opens a kernel's namespace: brings the CUDA names in, hiding the C library's ::abs and the like.
#define QGPU_CUDA_PRELUDE              \
    using qgpu_cuda::threadIdx;        \
    using qgpu_cuda::blockIdx;         \
    using qgpu_cuda::blockDim;         \
    using qgpu_cuda::gridDim;          \
    using qgpu_cuda::warpSize;         \
    using qgpu_cuda::__syncthreads;    \
    using qgpu_cuda::__syncwarp;       \
    using qgpu_cuda::atomicAdd;        \
    using qgpu_cuda::atomicSub;        \
    using qgpu_cuda::__shfl_sync;      \
    using qgpu_cuda::__shfl_up_sync;   \
    using qgpu_cuda::__shfl_down_sync; \
    using qgpu_cuda::__shfl_xor_sync;  \
    using qgpu_cuda::min;              \
    using qgpu_cuda::max;              \
    using qgpu_cuda::abs;              \
    using qgpu_cuda::__popc;           \
    using qgpu_cuda::__clz;            \
    using qgpu_cuda::__brev;           \
    using qgpu_cuda::__ffs;            \
    using qgpu_cuda::__mulhi;          \
    using qgpu_cuda::__umulhi;         \
    using qgpu_cuda::__byte_perm;      \
    using qgpu_cuda::int2;             \
    using qgpu_cuda::int4;             \
    using qgpu_cuda::uint2;            \
    using qgpu_cuda::uint4;            \
    using qgpu_cuda::make_int2;        \
    using qgpu_cuda::make_int4;        \
    using qgpu_cuda::make_uint2;       \
    using qgpu_cuda::make_uint4;

// Defines the runner the registry (HostExecutor.cpp) calls for kernel `name` of namespace qgpu_host_<name>.
#define QGPU_HOST_REGISTER(name)                                                    \
    qgpu_cuda::ArrayContents qgpu_host_run_##name(const qgpu::LaunchSpec& launch) { \
        return qgpu_cuda::launch(&qgpu_host_##name::name, launch);                  \
    }
