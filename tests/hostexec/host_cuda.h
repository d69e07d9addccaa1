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
#include <cfenv>
#include <climits>
#include <cmath>
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
#define __noinline__
#define __shared__ static
#define __constant__
#define __align__(n) alignas(n)
#define __restrict__ __restrict

#ifndef QGPU_FULL_MASK
#define QGPU_FULL_MASK 0xfu
#endif

namespace qgpu_cuda {

// The host's buffer for a kernel's extern __shared__ array (CMakeLists.txt rewrites the declaration): more
// than the machine's shared memory, so a launch's shared_bytes always fits.
inline constexpr size_t kDynamicSharedBytes = 4096;

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

// Device printf: each call's text is kept for the check (printedTexts), not printed. HostRuntime.cpp.
int printf(const char* format, ...) __attribute__((format(printf, 1, 2)));

// The machine's clock (qgpu_cuda.h): a count that every read advances, so each thread reads increasing values.
namespace detail {
inline std::atomic<unsigned> clockCount{0};
}
inline long clock() { return long(detail::clockCount.fetch_add(1)); }
inline long long clock64() { return detail::clockCount.fetch_add(1); }

inline void __syncthreads() { detail::syncBlock(); }
inline void __syncwarp(unsigned /*mask*/ = QGPU_FULL_MASK) { detail::syncWarp(); }

inline int atomicAdd(int* p, int v) { return std::atomic_ref<int>(*p).fetch_add(v); }
inline unsigned atomicAdd(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_add(v); }
inline int atomicSub(int* p, int v) { return std::atomic_ref<int>(*p).fetch_sub(v); }
inline unsigned atomicSub(unsigned* p, unsigned v) { return std::atomic_ref<unsigned>(*p).fetch_sub(v); }
namespace detail {
// Replaces *p by f(*p) atomically; returns the old value.
template <class T, class F>
T atomicUpdate(T* p, F f) {
    std::atomic_ref<T> word(*p);
    T old = word.load();
    while (!word.compare_exchange_weak(old, f(old))) {
    }
    return old;
}
}  // namespace detail

// The device header's overloads, on int, unsigned and unsigned long long (arguments convert as they do there).
#define QGPU_HOST_ATOMICS(T)                                                      \
    inline T atomicExch(T* p, T v) { return std::atomic_ref<T>(*p).exchange(v); } \
    inline T atomicCAS(T* p, T compare, T v) {                                    \
        std::atomic_ref<T>(*p).compare_exchange_strong(compare, v);               \
        return compare; /* the old value, whether or not it was replaced */       \
    }                                                                             \
    inline T atomicMin(T* p, T v) {                                               \
        return detail::atomicUpdate(p, [v](T o) { return v < o ? v : o; });       \
    }                                                                             \
    inline T atomicMax(T* p, T v) {                                               \
        return detail::atomicUpdate(p, [v](T o) { return v > o ? v : o; });       \
    }                                                                             \
    inline T atomicAnd(T* p, T v) { return std::atomic_ref<T>(*p).fetch_and(v); } \
    inline T atomicOr(T* p, T v) { return std::atomic_ref<T>(*p).fetch_or(v); }   \
    inline T atomicXor(T* p, T v) { return std::atomic_ref<T>(*p).fetch_xor(v); }
QGPU_HOST_ATOMICS(int)
QGPU_HOST_ATOMICS(unsigned)
QGPU_HOST_ATOMICS(unsigned long long)
#undef QGPU_HOST_ATOMICS
inline unsigned long long atomicAdd(unsigned long long* p, unsigned long long v) {
    return std::atomic_ref<unsigned long long>(*p).fetch_add(v);
}
inline long long atomicMin(long long* p, long long v) {
    return detail::atomicUpdate(p, [v](long long o) { return v < o ? v : o; });
}
inline long long atomicMax(long long* p, long long v) {
    return detail::atomicUpdate(p, [v](long long o) { return v > o ? v : o; });
}
inline unsigned atomicInc(unsigned* p, unsigned limit) {
    return detail::atomicUpdate(p, [limit](unsigned old) { return old >= limit ? 0u : old + 1; });
}
inline unsigned atomicDec(unsigned* p, unsigned limit) {
    return detail::atomicUpdate(p, [limit](unsigned old) { return old == 0 || old > limit ? limit : old - 1; });
}

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
#define QGPU_HOST_MIN_MAX(T)                         \
    inline T min(T a, T b) { return a < b ? a : b; } \
    inline T max(T a, T b) { return a > b ? a : b; }
QGPU_HOST_MIN_MAX(long)
QGPU_HOST_MIN_MAX(unsigned long)
QGPU_HOST_MIN_MAX(long long)
QGPU_HOST_MIN_MAX(unsigned long long)
#undef QGPU_HOST_MIN_MAX
inline long long llabs(long long a) { return a < 0 ? (long long)(0ull - (unsigned long long)a) : a; }
inline int __popcll(unsigned long long x) { return std::popcount(x); }
inline int __clzll(long long x) { return std::countl_zero((unsigned long long)x); }
inline int __ffsll(long long x) { return x == 0 ? 0 : std::countr_zero((unsigned long long)x) + 1; }
inline unsigned long long __brevll(unsigned long long x) {
    unsigned long long r = 0;
    for (int i = 0; i < 64; ++i) r |= (x >> i & 1ull) << (63 - i);
    return r;
}
inline long long __mul64hi(long long a, long long b) { return (long long)(((__int128)a * b) >> 64); }
inline unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return (unsigned long long)(((unsigned __int128)a * b) >> 64);
}
inline unsigned __byte_perm(unsigned a, unsigned b, unsigned s) {
    uint64_t bytes = uint64_t(b) << 32 | a;
    unsigned r = 0;
    for (int n = 0; n < 4; ++n) r |= unsigned(bytes >> (8 * (s >> (4 * n) & 7)) & 0xff) << (8 * n);
    return r;
}

// ---- single-precision float, as the PTX instructions define it ----
// The host's own IEEE-754 arithmetic in the rounding mode an intrinsic names; NaN results are made canonical
// when the arrays are read back. Kernels compile with -ffp-contract=fast on a host with fused multiply-add, so
// a * b + c is one fma where the device's Clang contracts it too (docs/qgpu-cuda.md); __fmul_* never fuses.
namespace detail {
template <class F>
auto rounded(int mode, F f) {
    std::fesetround(mode);
    auto r = f();
    std::fesetround(FE_TONEAREST);
    return r;
}
// An integer (exact in a double) to float in a rounding mode: GCC moves a conversion across fesetround even
// under -frounding-math, so the nearest float is stepped towards the directed one instead.
inline float toFloat(double exact, int mode) {
    float nearest = float(exact);
    if ((mode == FE_TOWARDZERO && std::fabs(double(nearest)) > std::fabs(exact)) ||
        (mode == FE_DOWNWARD && double(nearest) > exact))
        return std::nextafter(nearest, mode == FE_DOWNWARD ? -INFINITY : 0.0f);
    if (mode == FE_UPWARD && double(nearest) < exact) return std::nextafter(nearest, INFINITY);
    return nearest;
}
inline bool isNan(float x) { return x != x; }
// cvt.rzi/rni/rmi/rpi.s32/u32.f32: NaN gives 0, values beyond the type saturate.
inline double integral(float x, int mode) {
    double d = x;
    return mode == FE_TONEAREST    ? std::nearbyint(d)
           : mode == FE_TOWARDZERO ? std::trunc(d)
           : mode == FE_DOWNWARD   ? std::floor(d)
                                   : std::ceil(d);
}
inline int toInt(float x, int mode) {
    if (isNan(x)) return 0;
    double d = integral(x, mode);
    return d >= 2147483647.0 ? INT_MAX : d <= -2147483648.0 ? INT_MIN : int(d);
}
inline unsigned toUnsigned(float x, int mode) {
    if (isNan(x)) return 0;
    double d = integral(x, mode);
    return d >= 4294967295.0 ? UINT_MAX : d <= 0 ? 0u : unsigned(d);
}
// min.f32/max.f32: a NaN operand gives the other one; -0 is below +0.
inline float minMax(float a, float b, bool isMax) {
    if (isNan(a)) return b;
    if (isNan(b)) return a;
    if (a == b) return std::signbit(a) != isMax ? a : b;
    return (a < b) != isMax ? a : b;
}
}  // namespace detail

inline float fminf(float a, float b) { return detail::minMax(a, b, false); }
inline float fmaxf(float a, float b) { return detail::minMax(a, b, true); }
inline float fabsf(float a) { return std::fabs(a); }
inline float floorf(float a) { return std::floor(a); }
inline float ceilf(float a) { return std::ceil(a); }
inline float truncf(float a) { return std::trunc(a); }
inline float rintf(float a) { return std::nearbyint(a); }
inline float nearbyintf(float a) { return std::nearbyint(a); }
inline float sqrtf(float a) { return std::sqrt(a); }
inline float fmaf(float a, float b, float c) { return std::fma(a, b, c); }
#define QGPU_HOST_ROUNDED(suffix, mode)                                                    \
    inline float __fadd_##suffix(float a, float b) {                                       \
        return detail::rounded(mode, [&] {                                                 \
            volatile float x = a, y = b;                                                   \
            return float(x + y);                                                           \
        });                                                                                \
    }                                                                                      \
    inline float __fmul_##suffix(float a, float b) {                                       \
        return detail::rounded(mode, [&] {                                                 \
            volatile float x = a, y = b, product = x * y; /* never fused with an add */    \
            return float(product);                                                         \
        });                                                                                \
    }                                                                                      \
    inline float __fdiv_##suffix(float a, float b) {                                       \
        return detail::rounded(mode, [&] {                                                 \
            volatile float x = a, y = b;                                                   \
            return float(x / y);                                                           \
        });                                                                                \
    }                                                                                      \
    inline float __frcp_##suffix(float a) {                                                \
        return detail::rounded(mode, [&] {                                                 \
            volatile float x = a;                                                          \
            return 1.0f / float(x);                                                        \
        });                                                                                \
    }                                                                                      \
    inline float __fsqrt_##suffix(float a) {                                               \
        return detail::rounded(mode, [&] {                                                 \
            volatile float x = a;                                                          \
            return std::sqrt(float(x));                                                    \
        });                                                                                \
    }                                                                                      \
    inline float __fmaf_##suffix(float a, float b, float c) {                              \
        return detail::rounded(mode, [&] {                                                 \
            volatile float x = a, y = b, z = c;                                            \
            return std::fma(float(x), float(y), float(z));                                 \
        });                                                                                \
    }                                                                                      \
    inline int __float2int_##suffix(float a) { return detail::toInt(a, mode); }            \
    inline unsigned __float2uint_##suffix(float a) { return detail::toUnsigned(a, mode); } \
    inline float __int2float_##suffix(int a) { return detail::toFloat(double(a), mode); }  \
    inline float __uint2float_##suffix(unsigned a) { return detail::toFloat(double(a), mode); }
QGPU_HOST_ROUNDED(rn, FE_TONEAREST)
QGPU_HOST_ROUNDED(rz, FE_TOWARDZERO)
QGPU_HOST_ROUNDED(rd, FE_DOWNWARD)
QGPU_HOST_ROUNDED(ru, FE_UPWARD)
#undef QGPU_HOST_ROUNDED
inline int __float_as_int(float a) { return std::bit_cast<int>(a); }
inline unsigned __float_as_uint(float a) { return std::bit_cast<unsigned>(a); }
inline float __int_as_float(int a) { return std::bit_cast<float>(a); }
inline float __uint_as_float(unsigned a) { return std::bit_cast<float>(a); }
// The machine's float math library, the same source as the device's (integer code: the same bits).
#define QGPU_MATH_FN inline
#define QGPU_MATH_TABLE inline constexpr
#include "../../resources/include/qgpu_math.h"
#include "../../resources/include/qgpu_math_trig.h"
#include "../../resources/include/qgpu_math_hyperbolic.h"
#include "../../resources/include/qgpu_math_exact.h"
#undef QGPU_MATH_FN
#undef QGPU_MATH_TABLE
inline float __expf(float x) { return expf(x); }
inline float __exp10f(float x) { return exp10f(x); }
inline float __logf(float x) { return logf(x); }
inline float __log2f(float x) { return log2f(x); }
inline float __log10f(float x) { return log10f(x); }
inline float __sinf(float x) { return sinf(x); }
inline float __cosf(float x) { return cosf(x); }
inline void __sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
inline float __tanf(float x) { return tanf(x); }
inline float __powf(float x, float y) { return powf(x, y); }
// C++'s float overloads, as the device header has them.
inline float exp(float x) { return expf(x); }
inline float exp2(float x) { return exp2f(x); }
inline float log(float x) { return logf(x); }
inline float log2(float x) { return log2f(x); }
inline float log10(float x) { return log10f(x); }
inline float rsqrt(float x) { return rsqrtf(x); }
inline float sin(float x) { return sinf(x); }
inline float cos(float x) { return cosf(x); }
inline float sinpi(float x) { return sinpif(x); }
inline float cospi(float x) { return cospif(x); }
inline float tanh(float x) { return tanhf(x); }
inline float cbrt(float x) { return cbrtf(x); }
inline float atan(float x) { return atanf(x); }
inline float atan2(float y, float x) { return atan2f(y, x); }
inline float hypot(float x, float y) { return hypotf(x, y); }
inline float expm1(float x) { return expm1f(x); }
inline float log1p(float x) { return log1pf(x); }
inline float pow(float x, float y) { return powf(x, y); }
inline float tan(float x) { return tanf(x); }
inline float sinh(float x) { return sinhf(x); }
inline float cosh(float x) { return coshf(x); }
inline float asin(float x) { return asinf(x); }
inline float acos(float x) { return acosf(x); }
inline float asinh(float x) { return asinhf(x); }
inline float acosh(float x) { return acoshf(x); }
inline float atanh(float x) { return atanhf(x); }
inline float erf(float x) { return erff(x); }
inline float erfc(float x) { return erfcf(x); }
inline float erfcx(float x) { return erfcxf(x); }
inline float erfinv(float x) { return erfinvf(x); }
inline float erfcinv(float x) { return erfcinvf(x); }
inline void sincos(float x, float* s, float* c) { sincosf(x, s, c); }
inline float round(float x) { return roundf(x); }
inline float logb(float x) { return logbf(x); }
inline float fmod(float x, float y) { return fmodf(x, y); }
inline float remainder(float x, float y) { return remainderf(x, y); }
inline float remquo(float x, float y, int* quo) { return remquof(x, y, quo); }
inline float fdim(float x, float y) { return fdimf(x, y); }
inline float nextafter(float x, float y) { return nextafterf(x, y); }
inline long lround(float x) { return lroundf(x); }
inline long long llround(float x) { return llroundf(x); }
inline int ilogb(float x) { return ilogbf(x); }
inline float ldexp(float x, int n) { return ldexpf(x, n); }
inline float scalbn(float x, int n) { return scalbnf(x, n); }
inline float frexp(float x, int* e) { return frexpf(x, e); }
inline float modf(float x, float* whole) { return modff(x, whole); }
inline float sqrt(float x) { return sqrtf(x); }
inline float fabs(float x) { return fabsf(x); }
inline float floor(float x) { return floorf(x); }
inline float ceil(float x) { return ceilf(x); }
inline float trunc(float x) { return truncf(x); }
inline float rint(float x) { return rintf(x); }
inline float fmin(float x, float y) { return fminf(x, y); }
inline float fmax(float x, float y) { return fmaxf(x, y); }
inline float fma(float x, float y, float z) { return fmaf(x, y, z); }
inline float copysignf(float a, float b) { return std::copysign(a, b); }
inline float copysign(float x, float y) { return copysignf(x, y); }
// cvt.sat.f32.f32: clamped to [+0, 1], NaN gives +0.
inline float __saturatef(float a) { return a > 0.0f ? (a < 1.0f ? a : 1.0f) : 0.0f; }
// div.approx.f32: the quotient, but a * 0 (0 of a's sign times b's, NaN for an infinite a) where |b| >= 2^126.
inline float __fdividef(float a, float b) {
    if (std::fabs(b) >= 0x1p126f) return a * std::copysign(0.0f, b);
    volatile float x = a, y = b;
    return x / y;
}
// Unsigned shuffles (an unsigned argument would be ambiguous between the int and float forms).
inline unsigned __shfl_sync(unsigned mask, unsigned v, int lane, int width = warpSize) {
    return (unsigned)__shfl_sync(mask, (int)v, lane, width);
}
inline unsigned __shfl_up_sync(unsigned mask, unsigned v, unsigned delta, int width = warpSize) {
    return (unsigned)__shfl_up_sync(mask, (int)v, delta, width);
}
inline unsigned __shfl_down_sync(unsigned mask, unsigned v, unsigned delta, int width = warpSize) {
    return (unsigned)__shfl_down_sync(mask, (int)v, delta, width);
}
inline unsigned __shfl_xor_sync(unsigned mask, unsigned v, int laneMask, int width = warpSize) {
    return (unsigned)__shfl_xor_sync(mask, (int)v, laneMask, width);
}
// Votes, matches and warp reductions: the device's source (qgpu_votes.h) over the host's shuffles.
inline unsigned __qgpu_block_rank() {
    return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}
inline unsigned __qgpu_lane() { return __qgpu_block_rank() % unsigned(warpSize); }
#define QGPU_WARP_FN inline
#include "../../resources/include/qgpu_votes.h"
#undef QGPU_WARP_FN
inline float __shfl_sync(unsigned mask, float v, int lane, int width = warpSize) {
    return __int_as_float(__shfl_sync(mask, __float_as_int(v), lane, width));
}
inline float __shfl_up_sync(unsigned mask, float v, unsigned delta, int width = warpSize) {
    return __int_as_float(__shfl_up_sync(mask, __float_as_int(v), delta, width));
}
inline float __shfl_down_sync(unsigned mask, float v, unsigned delta, int width = warpSize) {
    return __int_as_float(__shfl_down_sync(mask, __float_as_int(v), delta, width));
}
inline float __shfl_xor_sync(unsigned mask, float v, int laneMask, int width = warpSize) {
    return __int_as_float(__shfl_xor_sync(mask, __float_as_int(v), laneMask, width));
}
inline float atomicAdd(float* p, float v) { return std::atomic_ref<float>(*p).fetch_add(v); }
inline float atomicExch(float* p, float v) { return std::atomic_ref<float>(*p).exchange(v); }

// The _block and _system forms: the same operations.
#define QGPU_HOST_SCOPED_ATOMIC(name) \
    template <class T, class... A>    \
    T name##_block(T* p, A... a) {    \
        return name(p, a...);         \
    }                                 \
    template <class T, class... A>    \
    T name##_system(T* p, A... a) {   \
        return name(p, a...);         \
    }
QGPU_HOST_SCOPED_ATOMIC(atomicAdd)
QGPU_HOST_SCOPED_ATOMIC(atomicSub)
QGPU_HOST_SCOPED_ATOMIC(atomicExch)
QGPU_HOST_SCOPED_ATOMIC(atomicCAS)
QGPU_HOST_SCOPED_ATOMIC(atomicMin)
QGPU_HOST_SCOPED_ATOMIC(atomicMax)
QGPU_HOST_SCOPED_ATOMIC(atomicInc)
QGPU_HOST_SCOPED_ATOMIC(atomicDec)
QGPU_HOST_SCOPED_ATOMIC(atomicAnd)
QGPU_HOST_SCOPED_ATOMIC(atomicOr)
QGPU_HOST_SCOPED_ATOMIC(atomicXor)
#undef QGPU_HOST_SCOPED_ATOMIC

#define QGPU_VECTOR_FN inline
#include "../../resources/include/qgpu_vector_types.h"
#undef QGPU_VECTOR_FN
struct dim3 {
    unsigned x, y, z;
    constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
    constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
inline uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }

// ---- the launcher ----

// Final contents of every array argument, in argument order.
using ArrayContents = std::vector<std::pair<std::string, std::vector<int64_t>>>;

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
// The texts of the printf calls of the last runGrid, sorted (CUDA leaves their order across threads open).
std::vector<std::string> printedTexts();

[[noreturn]] void badArgument(const qgpu::KernelArg& arg, size_t index, bool pointerParameter);

// The element type of an array parameter: int, unsigned, float, or one of CUDA's vectors of them.
template <class E>
using Component = std::remove_cv_t<decltype(std::declval<E>().x)>;
template <class E, class = void>
struct ElementOf {
    using type = E;
};
template <class E>
struct ElementOf<E, std::void_t<Component<E>>> {
    using type = Component<E>;
};

// The launch's element type for a C++ parameter type.
template <class T>
constexpr qgpu::ElementType elementType() {
    using qgpu::ElementType;
    if constexpr (std::is_same_v<T, float>) return ElementType::F32;
    if constexpr (std::is_same_v<T, unsigned>) return ElementType::U32;
    if constexpr (std::is_same_v<T, bool>) return ElementType::Bool;
    if constexpr (std::is_same_v<T, char> || std::is_same_v<T, signed char>) return ElementType::I8;
    if constexpr (std::is_same_v<T, unsigned char>) return ElementType::U8;
    if constexpr (std::is_same_v<T, short>) return ElementType::I16;
    if constexpr (std::is_same_v<T, unsigned short>) return ElementType::U16;
    if constexpr (std::is_same_v<T, long> || std::is_same_v<T, long long>) return ElementType::I64;
    if constexpr (std::is_same_v<T, unsigned long> || std::is_same_v<T, unsigned long long>) return ElementType::U64;
    return ElementType::I32;
}
template <class T>
constexpr bool kLaunchType =
    std::is_same_v<T, int> || std::is_same_v<T, unsigned> || std::is_same_v<T, float> || std::is_same_v<T, bool> ||
    std::is_same_v<T, char> || std::is_same_v<T, signed char> || std::is_same_v<T, unsigned char> ||
    std::is_same_v<T, short> || std::is_same_v<T, unsigned short> || std::is_same_v<T, long> ||
    std::is_same_v<T, long long> || std::is_same_v<T, unsigned long> || std::is_same_v<T, unsigned long long>;

template <class P>
P kernelArgument(const qgpu::KernelArg& arg, int32_t* memory, int base, size_t index) {
    using T = std::remove_cv_t<P>;
    if constexpr (std::is_pointer_v<T>) {
        using E = std::remove_cv_t<std::remove_pointer_t<T>>;
        using W = typename ElementOf<E>::type;
        // A struct that is not one of CUDA's vectors is given as int words, as the device's parameter
        // check takes it.
        static_assert(kLaunchType<W> || std::is_class_v<W>,
                      "kernel pointer parameters must point to bool, char, short, int, long long, their unsigned "
                      "types or float, to vectors of them, or to structs");
        if (!arg.isArray || !qgpu::sameStorage(arg.type, elementType<W>())) badArgument(arg, index, true);
        if (base * sizeof(int32_t) % alignof(E) != 0 ||
            arg.values.size() * size_t(qgpu::elementBytes(arg.type)) % sizeof(E) != 0)
            throw std::runtime_error("argument " + std::to_string(index) + " (\"" + arg.name +
                                     "\") does not hold whole, aligned vectors of the kernel's parameter");
        return reinterpret_cast<T>(memory + base);
    } else {
        static_assert(
            kLaunchType<T>,
            "kernel scalar parameters must be bool, char, short, int, long long, their unsigned types or float");
        if (arg.isArray || !qgpu::sameStorage(arg.type, elementType<T>())) badArgument(arg, index, false);
        if constexpr (std::is_same_v<T, float>) return std::bit_cast<float>(int32_t(arg.values.at(0)));
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

#include "host_cuda_prelude.h"

// Defines the runner the registry (HostExecutor.cpp) calls for kernel `name` of namespace qgpu_host_<name>.
#define QGPU_HOST_REGISTER(name)                                                    \
    qgpu_cuda::ArrayContents qgpu_host_run_##name(const qgpu::LaunchSpec& launch) { \
        return qgpu_cuda::launch(&qgpu_host_##name::name, launch);                  \
    }
