// qgpu device header: the CUDA subset the qgpu machine runs (4-lane warps, 32-bit integers).
// Included automatically before every kernel; no NVIDIA toolkit is involved.
#pragma once

#define __global__ __attribute__((global))
#define __device__ __attribute__((device))
#define __shared__ __attribute__((shared))
#define __constant__ __attribute__((constant))
#define __align__(n) __attribute__((aligned(n)))
#define __host__ __attribute__((host))
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...) __attribute__((launch_bounds(__VA_ARGS__)))

#include <__clang_cuda_builtin_vars.h>

#define warpSize 4
typedef __SIZE_TYPE__ size_t;
#ifndef NULL
#define NULL __null  // as CUDA's runtime header brings it (from <stddef.h>) into every kernel
#endif
#define QGPU_FULL_MASK 0xfu

// Shuffle control word as PTX wants it: segment mask in bits 8..12, clamp in bits 0..4 (warpSize 32 view
// of a 4-lane segment; the lowering reads the width back from it).
#define QGPU_SHFL_C(width, clamp) ((((32 - (width)) & 0x1f) << 8) | (clamp))

// __syncthreads() is a Clang builtin for NVPTX (bar.sync 0); nothing to declare.
// Memory order needs no fences on this machine: a warp runs until it exits or waits at a barrier, and
// every access reaches the one memory at once. The fences and __nanosleep are therefore no-ops, and __ldg
// (a load through the read-only cache) is a plain load.
static __device__ __forceinline__ void __threadfence() {}
static __device__ __forceinline__ void __threadfence_block() {}
static __device__ __forceinline__ void __threadfence_system() {}
static __device__ __forceinline__ void __nanosleep(unsigned) {}
template <class T>
static __device__ __forceinline__ T __ldg(const T* p) {
    return *p;
}
// The machine has no cycle counter. clock(), clock64() and %globaltimer read its clock instead: a launch-wide
// count that every read advances by one (an atomic add the model writes), so each thread reads strictly
// increasing values, the same on every run and on both backends. It counts reads, not time.
typedef long clock_t;
static __device__ __forceinline__ clock_t clock() { return (clock_t)__nvvm_read_ptx_sreg_clock(); }
static __device__ __forceinline__ long long clock64() { return __nvvm_read_ptx_sreg_clock64(); }
static __device__ __forceinline__ void __syncwarp(unsigned mask = QGPU_FULL_MASK) { __nvvm_bar_warp_sync(mask); }

static __device__ __forceinline__ int atomicAdd(int* p, int v) { return __nvvm_atom_add_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicAdd(unsigned* p, unsigned v) {
    return (unsigned)__nvvm_atom_add_gen_i((int*)p, (int)v);
}
static __device__ __forceinline__ int atomicSub(int* p, int v) { return __nvvm_atom_add_gen_i(p, -v); }
static __device__ __forceinline__ unsigned atomicSub(unsigned* p, unsigned v) {
    return (unsigned)__nvvm_atom_add_gen_i((int*)p, -(int)v);
}
// The other atomics: one PTX atom each, which the lowering runs for the lanes of a warp one after another.
static __device__ __forceinline__ int atomicExch(int* p, int v) { return __nvvm_atom_xchg_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicExch(unsigned* p, unsigned v) {
    return (unsigned)__nvvm_atom_xchg_gen_i((int*)p, (int)v);
}
static __device__ __forceinline__ float atomicExch(float* p, float v) {
    return __builtin_bit_cast(float, __nvvm_atom_xchg_gen_i((int*)p, __builtin_bit_cast(int, v)));
}
static __device__ __forceinline__ int atomicCAS(int* p, int compare, int v) {
    return __nvvm_atom_cas_gen_i(p, compare, v);
}
static __device__ __forceinline__ unsigned atomicCAS(unsigned* p, unsigned compare, unsigned v) {
    return (unsigned)__nvvm_atom_cas_gen_i((int*)p, (int)compare, (int)v);
}
static __device__ __forceinline__ int atomicMin(int* p, int v) { return __nvvm_atom_min_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicMin(unsigned* p, unsigned v) { return __nvvm_atom_min_gen_ui(p, v); }
static __device__ __forceinline__ int atomicMax(int* p, int v) { return __nvvm_atom_max_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicMax(unsigned* p, unsigned v) { return __nvvm_atom_max_gen_ui(p, v); }
static __device__ __forceinline__ unsigned atomicInc(unsigned* p, unsigned limit) {
    return __nvvm_atom_inc_gen_ui(p, limit);
}
static __device__ __forceinline__ unsigned atomicDec(unsigned* p, unsigned limit) {
    return __nvvm_atom_dec_gen_ui(p, limit);
}
static __device__ __forceinline__ int atomicAnd(int* p, int v) { return __nvvm_atom_and_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicAnd(unsigned* p, unsigned v) {
    return (unsigned)__nvvm_atom_and_gen_i((int*)p, (int)v);
}
static __device__ __forceinline__ int atomicOr(int* p, int v) { return __nvvm_atom_or_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicOr(unsigned* p, unsigned v) {
    return (unsigned)__nvvm_atom_or_gen_i((int*)p, (int)v);
}
static __device__ __forceinline__ int atomicXor(int* p, int v) { return __nvvm_atom_xor_gen_i(p, v); }
static __device__ __forceinline__ unsigned atomicXor(unsigned* p, unsigned v) {
    return (unsigned)__nvvm_atom_xor_gen_i((int*)p, (int)v);
}

static __device__ __forceinline__ int __shfl_sync(unsigned mask, int v, int lane, int width = warpSize) {
    return __nvvm_shfl_sync_idx_i32(mask, v, lane, QGPU_SHFL_C(width, 0x1f));
}
static __device__ __forceinline__ int __shfl_up_sync(unsigned mask, int v, unsigned delta, int width = warpSize) {
    return __nvvm_shfl_sync_up_i32(mask, v, delta, QGPU_SHFL_C(width, 0));
}
static __device__ __forceinline__ int __shfl_down_sync(unsigned mask, int v, unsigned delta, int width = warpSize) {
    return __nvvm_shfl_sync_down_i32(mask, v, delta, QGPU_SHFL_C(width, 0x1f));
}
static __device__ __forceinline__ int __shfl_xor_sync(unsigned mask, int v, int laneMask, int width = warpSize) {
    return __nvvm_shfl_sync_bfly_i32(mask, v, laneMask, QGPU_SHFL_C(width, 0x1f));
}

// 64-bit atomics: the active lanes of a warp one after another, each reading and writing both words.
#define QGPU_ULL(p) ((long long*)(p))
typedef unsigned long long qgpu_ull;
static __device__ __forceinline__ qgpu_ull atomicAdd(qgpu_ull* p, qgpu_ull v) {
    return (qgpu_ull)__nvvm_atom_add_gen_ll(QGPU_ULL(p), (long long)v);
}
static __device__ __forceinline__ qgpu_ull atomicExch(qgpu_ull* p, qgpu_ull v) {
    return (qgpu_ull)__nvvm_atom_xchg_gen_ll(QGPU_ULL(p), (long long)v);
}
static __device__ __forceinline__ qgpu_ull atomicCAS(qgpu_ull* p, qgpu_ull compare, qgpu_ull v) {
    return (qgpu_ull)__nvvm_atom_cas_gen_ll(QGPU_ULL(p), (long long)compare, (long long)v);
}
static __device__ __forceinline__ long long atomicMin(long long* p, long long v) { return __nvvm_atom_min_gen_ll(p, v); }
static __device__ __forceinline__ long long atomicMax(long long* p, long long v) { return __nvvm_atom_max_gen_ll(p, v); }
static __device__ __forceinline__ qgpu_ull atomicMin(qgpu_ull* p, qgpu_ull v) { return __nvvm_atom_min_gen_ull(p, v); }
static __device__ __forceinline__ qgpu_ull atomicMax(qgpu_ull* p, qgpu_ull v) { return __nvvm_atom_max_gen_ull(p, v); }
static __device__ __forceinline__ qgpu_ull atomicAnd(qgpu_ull* p, qgpu_ull v) {
    return (qgpu_ull)__nvvm_atom_and_gen_ll(QGPU_ULL(p), (long long)v);
}
static __device__ __forceinline__ qgpu_ull atomicOr(qgpu_ull* p, qgpu_ull v) {
    return (qgpu_ull)__nvvm_atom_or_gen_ll(QGPU_ULL(p), (long long)v);
}
static __device__ __forceinline__ qgpu_ull atomicXor(qgpu_ull* p, qgpu_ull v) {
    return (qgpu_ull)__nvvm_atom_xor_gen_ll(QGPU_ULL(p), (long long)v);
}
#undef QGPU_ULL

static __device__ __forceinline__ int min(int a, int b) { return a < b ? a : b; }
static __device__ __forceinline__ int max(int a, int b) { return a > b ? a : b; }
static __device__ __forceinline__ unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
static __device__ __forceinline__ unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
static __device__ __forceinline__ int abs(int a) { return a < 0 ? -a : a; }
// 64-bit integers are exact: two machine words each (docs/lowering.md). size_t is unsigned long.
#define QGPU_MIN_MAX(T)                                                                 \
    static __device__ __forceinline__ T min(T a, T b) { return a < b ? a : b; }        \
    static __device__ __forceinline__ T max(T a, T b) { return a > b ? a : b; }
QGPU_MIN_MAX(long)
QGPU_MIN_MAX(unsigned long)
QGPU_MIN_MAX(long long)
QGPU_MIN_MAX(unsigned long long)
#undef QGPU_MIN_MAX
static __device__ __forceinline__ long labs(long a) { return a < 0 ? -a : a; }
static __device__ __forceinline__ long long llabs(long long a) { return a < 0 ? -a : a; }
static __device__ __forceinline__ long abs(long a) { return labs(a); }
static __device__ __forceinline__ long long abs(long long a) { return llabs(a); }

// Integer intrinsics (each lowers to a short sequence of machine instructions; docs/lowering.md).
static __device__ __forceinline__ int __popc(unsigned x) { return __builtin_popcount(x); }
static __device__ __forceinline__ int __clz(int x) { return __builtin_clzg((unsigned)x, 32); }
static __device__ __forceinline__ unsigned __brev(unsigned x) { return __builtin_bitreverse32(x); }
static __device__ __forceinline__ int __ffs(int x) { return x == 0 ? 0 : __clz((int)__brev((unsigned)x)) + 1; }
static __device__ __forceinline__ int __mulhi(int a, int b) { return __nvvm_mulhi_i(a, b); }
static __device__ __forceinline__ unsigned __umulhi(unsigned a, unsigned b) { return __nvvm_mulhi_ui(a, b); }
static __device__ __forceinline__ int __popcll(unsigned long long x) { return __builtin_popcountll(x); }
static __device__ __forceinline__ int __clzll(long long x) { return __builtin_clzg((unsigned long long)x, 64); }
static __device__ __forceinline__ unsigned long long __brevll(unsigned long long x) { return __builtin_bitreverse64(x); }
static __device__ __forceinline__ int __ffsll(long long x) {
    return x == 0 ? 0 : __clzll((long long)__brevll((unsigned long long)x)) + 1;
}
static __device__ __forceinline__ long long __mul64hi(long long a, long long b) { return __nvvm_mulhi_ll(a, b); }
static __device__ __forceinline__ unsigned long long __umul64hi(unsigned long long a, unsigned long long b) {
    return __nvvm_mulhi_ull(a, b);
}
// Byte n of the result is byte (s >> 4n) & 7 of the eight bytes {b, a} (a's are 0..3).
static __device__ __forceinline__ unsigned __byte_perm(unsigned a, unsigned b, unsigned s) {
    return (unsigned)__nvvm_prmt((int)a, (int)b, (int)(s & 0x7777u));
}

// CUDA's vector types (qgpu_vector_types.h), and uint3 and dim3, which the built-in index variables convert to.
#define QGPU_VECTOR_FN static __device__ __forceinline__
#include "qgpu_vector_types.h"
#undef QGPU_VECTOR_FN
struct uint3 { unsigned x, y, z; };
struct dim3 {
    unsigned x, y, z;
    __device__ constexpr dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz) {}
    __device__ constexpr dim3(uint3 v) : x(v.x), y(v.y), z(v.z) {}
};
static __device__ __forceinline__ uint3 make_uint3(unsigned x, unsigned y, unsigned z) { return uint3{x, y, z}; }
#define QGPU_INDEX_CONVERSIONS(builtin)                                                             \
    __device__ inline builtin::operator uint3() const { return uint3{x, y, z}; }                   \
    __device__ inline builtin::operator dim3() const { return dim3(x, y, z); }
QGPU_INDEX_CONVERSIONS(__cuda_builtin_threadIdx_t)
QGPU_INDEX_CONVERSIONS(__cuda_builtin_blockIdx_t)
QGPU_INDEX_CONVERSIONS(__cuda_builtin_blockDim_t)
QGPU_INDEX_CONVERSIONS(__cuda_builtin_gridDim_t)
#undef QGPU_INDEX_CONVERSIONS

// Single-precision float: IEEE-754 binary32, every operation exact to its PTX definition (each lowers to a
// routine of integer machine instructions; docs/qgpu-cuda.md lists what a kernel may use).
static __device__ __forceinline__ float fminf(float a, float b) { return __nvvm_fmin_f(a, b); }
static __device__ __forceinline__ float fmaxf(float a, float b) { return __nvvm_fmax_f(a, b); }
static __device__ __forceinline__ float fabsf(float a) { return __builtin_fabsf(a); }
static __device__ __forceinline__ float floorf(float a) { return __builtin_floorf(a); }
static __device__ __forceinline__ float ceilf(float a) { return __builtin_ceilf(a); }
static __device__ __forceinline__ float truncf(float a) { return __builtin_truncf(a); }
static __device__ __forceinline__ float rintf(float a) { return __builtin_rintf(a); }
static __device__ __forceinline__ float nearbyintf(float a) { return __builtin_nearbyintf(a); }
static __device__ __forceinline__ long long llrintf(float a) { return __nvvm_f2ll_rn(a); }
static __device__ __forceinline__ long lrintf(float a) { return __nvvm_f2ll_rn(a); }
// Conversions between float and 64-bit integers in each rounding (a signed long long to float rounds to
// nearest or towards zero only).
#define QGPU_WIDE_CONVERSIONS(mode, nvvm)                                                                     \
    static __device__ __forceinline__ long long __float2ll_##mode(float a) { return __nvvm_f2ll_##nvvm(a); }   \
    static __device__ __forceinline__ unsigned long long __float2ull_##mode(float a) {                        \
        return __nvvm_f2ull_##nvvm(a);                                                                      \
    }                                                                                                       \
    static __device__ __forceinline__ float __ull2float_##mode(unsigned long long a) {                        \
        return __nvvm_ull2f_##nvvm(a);                                                                      \
    }                                                                                                       \
    static __device__ __forceinline__ float __ll2float_##mode(long long a) { return __nvvm_ll2f_##nvvm(a); }
QGPU_WIDE_CONVERSIONS(rn, rn)
QGPU_WIDE_CONVERSIONS(rz, rz)
QGPU_WIDE_CONVERSIONS(rd, rm)
QGPU_WIDE_CONVERSIONS(ru, rp)
#undef QGPU_WIDE_CONVERSIONS
static __device__ __forceinline__ float __fadd_rn(float a, float b) { return __nvvm_add_rn_f(a, b); }
static __device__ __forceinline__ float __fadd_rz(float a, float b) { return __nvvm_add_rz_f(a, b); }
static __device__ __forceinline__ float __fadd_rd(float a, float b) { return __nvvm_add_rm_f(a, b); }
static __device__ __forceinline__ float __fadd_ru(float a, float b) { return __nvvm_add_rp_f(a, b); }
static __device__ __forceinline__ float sqrtf(float a) { return __nvvm_sqrt_rn_f(a); }
static __device__ __forceinline__ float fmaf(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
static __device__ __forceinline__ float __fmaf_rn(float a, float b, float c) { return __nvvm_fma_rn_f(a, b, c); }
static __device__ __forceinline__ float __fmaf_rz(float a, float b, float c) { return __nvvm_fma_rz_f(a, b, c); }
static __device__ __forceinline__ float __fmaf_rd(float a, float b, float c) { return __nvvm_fma_rm_f(a, b, c); }
static __device__ __forceinline__ float __fmaf_ru(float a, float b, float c) { return __nvvm_fma_rp_f(a, b, c); }
static __device__ __forceinline__ float __fsqrt_rn(float a) { return __nvvm_sqrt_rn_f(a); }
static __device__ __forceinline__ float __fsqrt_rz(float a) { return __nvvm_sqrt_rz_f(a); }
static __device__ __forceinline__ float __fsqrt_rd(float a) { return __nvvm_sqrt_rm_f(a); }
static __device__ __forceinline__ float __fsqrt_ru(float a) { return __nvvm_sqrt_rp_f(a); }
static __device__ __forceinline__ float __fdiv_rn(float a, float b) { return __nvvm_div_rn_f(a, b); }
static __device__ __forceinline__ float __fdiv_rz(float a, float b) { return __nvvm_div_rz_f(a, b); }
static __device__ __forceinline__ float __fdiv_rd(float a, float b) { return __nvvm_div_rm_f(a, b); }
static __device__ __forceinline__ float __fdiv_ru(float a, float b) { return __nvvm_div_rp_f(a, b); }
static __device__ __forceinline__ float __frcp_rn(float a) { return __nvvm_rcp_rn_f(a); }
static __device__ __forceinline__ float __frcp_rz(float a) { return __nvvm_rcp_rz_f(a); }
static __device__ __forceinline__ float __frcp_rd(float a) { return __nvvm_rcp_rm_f(a); }
static __device__ __forceinline__ float __frcp_ru(float a) { return __nvvm_rcp_rp_f(a); }
// div.approx: correctly rounded, except 0 (NaN for an infinite a) where |b| >= 2^126, as on the GPU.
static __device__ __forceinline__ float __fdividef(float a, float b) { return __nvvm_div_approx_f(a, b); }
// Clamped to [+0.0, 1.0]; NaN gives +0.0.
static __device__ __forceinline__ float __saturatef(float a) { return __nvvm_saturate_f(a); }
static __device__ __forceinline__ float copysignf(float a, float b) { return __builtin_copysignf(a, b); }
static __device__ __forceinline__ float __fmul_rn(float a, float b) { return __nvvm_mul_rn_f(a, b); }
static __device__ __forceinline__ float __fmul_rz(float a, float b) { return __nvvm_mul_rz_f(a, b); }
static __device__ __forceinline__ float __fmul_rd(float a, float b) { return __nvvm_mul_rm_f(a, b); }
static __device__ __forceinline__ float __fmul_ru(float a, float b) { return __nvvm_mul_rp_f(a, b); }
static __device__ __forceinline__ int __float2int_rn(float a) { return __nvvm_f2i_rn(a); }
static __device__ __forceinline__ int __float2int_rz(float a) { return __nvvm_f2i_rz(a); }
static __device__ __forceinline__ int __float2int_rd(float a) { return __nvvm_f2i_rm(a); }
static __device__ __forceinline__ int __float2int_ru(float a) { return __nvvm_f2i_rp(a); }
static __device__ __forceinline__ unsigned __float2uint_rn(float a) { return __nvvm_f2ui_rn(a); }
static __device__ __forceinline__ unsigned __float2uint_rz(float a) { return __nvvm_f2ui_rz(a); }
static __device__ __forceinline__ unsigned __float2uint_rd(float a) { return __nvvm_f2ui_rm(a); }
static __device__ __forceinline__ unsigned __float2uint_ru(float a) { return __nvvm_f2ui_rp(a); }
static __device__ __forceinline__ float __int2float_rn(int a) { return __nvvm_i2f_rn(a); }
// LLVM 19 folds __nvvm_i2f_rz and __nvvm_ui2f_rz into a conversion to nearest at -O1 and above, where nvcc
// keeps cvt.rz: the rounding towards zero is written in PTX.
static __device__ __forceinline__ float __int2float_rz(int a) {
    float r;
    asm("cvt.rz.f32.s32 %0, %1;" : "=f"(r) : "r"(a));
    return r;
}
static __device__ __forceinline__ float __int2float_rd(int a) { return __nvvm_i2f_rm(a); }
static __device__ __forceinline__ float __int2float_ru(int a) { return __nvvm_i2f_rp(a); }
static __device__ __forceinline__ float __uint2float_rn(unsigned a) { return __nvvm_ui2f_rn(a); }
static __device__ __forceinline__ float __uint2float_rz(unsigned a) {
    float r;
    asm("cvt.rz.f32.u32 %0, %1;" : "=f"(r) : "r"(a));
    return r;
}
static __device__ __forceinline__ float __uint2float_rd(unsigned a) { return __nvvm_ui2f_rm(a); }
static __device__ __forceinline__ float __uint2float_ru(unsigned a) { return __nvvm_ui2f_rp(a); }
static __device__ __forceinline__ int __float_as_int(float a) { return __builtin_bit_cast(int, a); }
static __device__ __forceinline__ unsigned __float_as_uint(float a) { return __builtin_bit_cast(unsigned, a); }
static __device__ __forceinline__ float __int_as_float(int a) { return __builtin_bit_cast(float, a); }
static __device__ __forceinline__ float __uint_as_float(unsigned a) { return __builtin_bit_cast(float, a); }

// CUDA's 16-bit float types, declared so that a use is one located error.
struct __qgpu_no_16_bit_float {};
#define QGPU_NO_16_BIT_FLOAT __attribute__((unavailable("the machine computes in 32-bit float; use float")))
typedef __qgpu_no_16_bit_float __half QGPU_NO_16_BIT_FLOAT;
typedef __qgpu_no_16_bit_float __half2 QGPU_NO_16_BIT_FLOAT;
typedef __qgpu_no_16_bit_float __nv_bfloat16 QGPU_NO_16_BIT_FLOAT;
typedef __qgpu_no_16_bit_float __nv_bfloat162 QGPU_NO_16_BIT_FLOAT;
#undef QGPU_NO_16_BIT_FLOAT

// The float math library (qgpu_math.h): integer code, the same bits on the machine as on a host.
#define QGPU_MATH_FN static __device__ __forceinline__
#define QGPU_MATH_TABLE static __device__ const
#include "qgpu_math.h"
#include "qgpu_math_trig.h"
#include "qgpu_math_hyperbolic.h"
#include "qgpu_math_exact.h"
#undef QGPU_MATH_FN
#undef QGPU_MATH_TABLE
// CUDA's fast intrinsics, here as accurate as the functions they stand for.
static __device__ __forceinline__ float __expf(float x) { return expf(x); }
static __device__ __forceinline__ float __exp10f(float x) { return exp10f(x); }
static __device__ __forceinline__ float __logf(float x) { return logf(x); }
static __device__ __forceinline__ float __log2f(float x) { return log2f(x); }
static __device__ __forceinline__ float __log10f(float x) { return log10f(x); }
static __device__ __forceinline__ float __sinf(float x) { return sinf(x); }
static __device__ __forceinline__ float __cosf(float x) { return cosf(x); }
static __device__ __forceinline__ void __sincosf(float x, float* s, float* c) { sincosf(x, s, c); }
static __device__ __forceinline__ float __tanf(float x) { return tanf(x); }
static __device__ __forceinline__ float __powf(float x, float y) { return powf(x, y); }
// C++'s float overloads. The double ones CUDA also has are refused where they are called: the machine
// has no double (an int argument is ambiguous between the two: cast it to float).
#define QGPU_NO_DOUBLE(name, f) \
    __attribute__((unavailable("the machine has no double: give " #name " a float argument, or call " #f)))
#define QGPU_FLOAT_OVERLOAD1(name, f)                                                 \
    static __device__ __forceinline__ float name(float x) { return f(x); }            \
    __device__ double name(double) QGPU_NO_DOUBLE(name, f);
#define QGPU_FLOAT_OVERLOAD2(name, f)                                                 \
    static __device__ __forceinline__ float name(float x, float y) { return f(x, y); } \
    __device__ double name(double, double) QGPU_NO_DOUBLE(name, f);
QGPU_FLOAT_OVERLOAD1(exp, expf)
QGPU_FLOAT_OVERLOAD1(exp2, exp2f)
QGPU_FLOAT_OVERLOAD1(log, logf)
QGPU_FLOAT_OVERLOAD1(log2, log2f)
QGPU_FLOAT_OVERLOAD1(log10, log10f)
QGPU_FLOAT_OVERLOAD1(rsqrt, rsqrtf)
QGPU_FLOAT_OVERLOAD1(sin, sinf)
QGPU_FLOAT_OVERLOAD1(cos, cosf)
QGPU_FLOAT_OVERLOAD1(sinpi, sinpif)
QGPU_FLOAT_OVERLOAD1(cospi, cospif)
QGPU_FLOAT_OVERLOAD1(tanh, tanhf)
QGPU_FLOAT_OVERLOAD1(expm1, expm1f)
QGPU_FLOAT_OVERLOAD1(log1p, log1pf)
QGPU_FLOAT_OVERLOAD1(sinh, sinhf)
QGPU_FLOAT_OVERLOAD1(cosh, coshf)
QGPU_FLOAT_OVERLOAD1(asin, asinf)
QGPU_FLOAT_OVERLOAD1(acos, acosf)
QGPU_FLOAT_OVERLOAD1(asinh, asinhf)
QGPU_FLOAT_OVERLOAD1(acosh, acoshf)
QGPU_FLOAT_OVERLOAD1(atanh, atanhf)
QGPU_FLOAT_OVERLOAD1(tan, tanf)
QGPU_FLOAT_OVERLOAD2(pow, powf)
QGPU_FLOAT_OVERLOAD1(erf, erff)
QGPU_FLOAT_OVERLOAD1(erfc, erfcf)
QGPU_FLOAT_OVERLOAD1(erfcx, erfcxf)
QGPU_FLOAT_OVERLOAD1(erfinv, erfinvf)
QGPU_FLOAT_OVERLOAD1(erfcinv, erfcinvf)
QGPU_FLOAT_OVERLOAD1(cbrt, cbrtf)
QGPU_FLOAT_OVERLOAD1(atan, atanf)
QGPU_FLOAT_OVERLOAD2(atan2, atan2f)
QGPU_FLOAT_OVERLOAD2(hypot, hypotf)
QGPU_FLOAT_OVERLOAD1(round, roundf)
QGPU_FLOAT_OVERLOAD1(logb, logbf)
QGPU_FLOAT_OVERLOAD2(fmod, fmodf)
QGPU_FLOAT_OVERLOAD2(remainder, remainderf)
QGPU_FLOAT_OVERLOAD2(fdim, fdimf)
QGPU_FLOAT_OVERLOAD2(nextafter, nextafterf)
QGPU_FLOAT_OVERLOAD1(sqrt, sqrtf)
QGPU_FLOAT_OVERLOAD1(fabs, fabsf)
QGPU_FLOAT_OVERLOAD1(floor, floorf)
QGPU_FLOAT_OVERLOAD1(ceil, ceilf)
QGPU_FLOAT_OVERLOAD1(trunc, truncf)
QGPU_FLOAT_OVERLOAD1(rint, rintf)
QGPU_FLOAT_OVERLOAD2(fmin, fminf)
QGPU_FLOAT_OVERLOAD2(fmax, fmaxf)
QGPU_FLOAT_OVERLOAD2(copysign, copysignf)
static __device__ __forceinline__ float fma(float x, float y, float z) { return fmaf(x, y, z); }
__device__ double fma(double, double, double) QGPU_NO_DOUBLE(fma, fmaf);
static __device__ __forceinline__ void sincos(float x, float* s, float* c) { sincosf(x, s, c); }
__device__ void sincos(double, double*, double*) QGPU_NO_DOUBLE(sincos, sincosf);
static __device__ __forceinline__ long lround(float x) { return lroundf(x); }
__device__ long lround(double) QGPU_NO_DOUBLE(lround, lroundf);
static __device__ __forceinline__ long long llround(float x) { return llroundf(x); }
__device__ long long llround(double) QGPU_NO_DOUBLE(llround, llroundf);
static __device__ __forceinline__ int ilogb(float x) { return ilogbf(x); }
__device__ int ilogb(double) QGPU_NO_DOUBLE(ilogb, ilogbf);
static __device__ __forceinline__ float ldexp(float x, int n) { return ldexpf(x, n); }
__device__ double ldexp(double, int) QGPU_NO_DOUBLE(ldexp, ldexpf);
static __device__ __forceinline__ float scalbn(float x, int n) { return scalbnf(x, n); }
__device__ double scalbn(double, int) QGPU_NO_DOUBLE(scalbn, scalbnf);
static __device__ __forceinline__ float frexp(float x, int* e) { return frexpf(x, e); }
__device__ double frexp(double, int*) QGPU_NO_DOUBLE(frexp, frexpf);
static __device__ __forceinline__ float modf(float x, float* whole) { return modff(x, whole); }
__device__ double modf(double, double*) QGPU_NO_DOUBLE(modf, modff);
static __device__ __forceinline__ float remquo(float x, float y, int* quo) { return remquof(x, y, quo); }
__device__ double remquo(double, double, int*) QGPU_NO_DOUBLE(remquo, remquof);
#undef QGPU_FLOAT_OVERLOAD1
#undef QGPU_FLOAT_OVERLOAD2
#undef QGPU_NO_DOUBLE
// Unsigned shuffles (an unsigned argument would be ambiguous between the int and float forms).
static __device__ __forceinline__ unsigned __shfl_sync(unsigned mask, unsigned v, int lane, int width = warpSize) {
    return (unsigned)__shfl_sync(mask, (int)v, lane, width);
}
static __device__ __forceinline__ unsigned __shfl_up_sync(unsigned mask, unsigned v, unsigned delta, int width = warpSize) {
    return (unsigned)__shfl_up_sync(mask, (int)v, delta, width);
}
static __device__ __forceinline__ unsigned __shfl_down_sync(unsigned mask, unsigned v, unsigned delta, int width = warpSize) {
    return (unsigned)__shfl_down_sync(mask, (int)v, delta, width);
}
static __device__ __forceinline__ unsigned __shfl_xor_sync(unsigned mask, unsigned v, int laneMask, int width = warpSize) {
    return (unsigned)__shfl_xor_sync(mask, (int)v, laneMask, width);
}
// Float shuffles move the float's 32 bits unchanged (NaN payloads included).
static __device__ __forceinline__ float __shfl_sync(unsigned mask, float v, int lane, int width = warpSize) {
    return __int_as_float(__shfl_sync(mask, __float_as_int(v), lane, width));
}
static __device__ __forceinline__ float __shfl_up_sync(unsigned mask, float v, unsigned delta, int width = warpSize) {
    return __int_as_float(__shfl_up_sync(mask, __float_as_int(v), delta, width));
}
static __device__ __forceinline__ float __shfl_down_sync(unsigned mask, float v, unsigned delta,
                                                         int width = warpSize) {
    return __int_as_float(__shfl_down_sync(mask, __float_as_int(v), delta, width));
}
static __device__ __forceinline__ float __shfl_xor_sync(unsigned mask, float v, int laneMask, int width = warpSize) {
    return __int_as_float(__shfl_xor_sync(mask, __float_as_int(v), laneMask, width));
}
// Votes, matches and warp reductions (qgpu_votes.h), built from the shuffles above.
static __device__ __forceinline__ unsigned __qgpu_lane() { return __nvvm_read_ptx_sreg_laneid(); }
// The thread's rank in its block (CUDA's linear thread index; a warp is 4 consecutive ranks).
static __device__ __forceinline__ unsigned __qgpu_block_rank() {
    return threadIdx.x + threadIdx.y * blockDim.x + threadIdx.z * blockDim.x * blockDim.y;
}
#define QGPU_WARP_FN static __device__ __forceinline__
#include "qgpu_votes.h"
#undef QGPU_WARP_FN
// Lanes add in lane order, one at a time (docs/isa.md); a warp's adds never interleave with another's.
static __device__ __forceinline__ float atomicAdd(float* p, float v) { return __nvvm_atom_add_gen_f(p, v); }

// The _block and _system forms are the same operations: the machine is one multiprocessor with one memory.
#define atomicAdd_block atomicAdd
#define atomicAdd_system atomicAdd
#define atomicSub_block atomicSub
#define atomicSub_system atomicSub
#define atomicExch_block atomicExch
#define atomicExch_system atomicExch
#define atomicCAS_block atomicCAS
#define atomicCAS_system atomicCAS
#define atomicMin_block atomicMin
#define atomicMin_system atomicMin
#define atomicMax_block atomicMax
#define atomicMax_system atomicMax
#define atomicInc_block atomicInc
#define atomicInc_system atomicInc
#define atomicDec_block atomicDec
#define atomicDec_system atomicDec
#define atomicAnd_block atomicAnd
#define atomicAnd_system atomicAnd
#define atomicOr_block atomicOr
#define atomicOr_system atomicOr
#define atomicXor_block atomicXor
#define atomicXor_system atomicXor

// Device printf (qgpu_printf.h): records in global memory that the host formats after the launch; assert
// (qgpu_assert.h, also <cassert>) prints CUDA's message through it when it fails.
#include "qgpu_printf.h"
#include "qgpu_assert.h"
