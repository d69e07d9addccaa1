// Device printf and assert, as CUDA implements them: each call appends a record to a buffer in global
// memory (the model writes it with the launch's other stores), and the host formats the records in buffer
// order once the launch has ended (core's DevicePrintf; docs/qgpu-cuda.md).
#pragma once

#ifndef QGPU_PRINTF_WORDS
#define QGPU_PRINTF_WORDS 256
#endif

// Word 0 counts the words every call asked for; the records follow. A record that does not fit is dropped
// whole, and the host reports the words dropped. A record is the format string's address (never 0: the host
// reads a 0 there as the end of the records), one or more kind words, then each argument's words (low word
// first). A kind word holds the kinds of up to nine arguments, 3 bits each with the first lowest (1 a 32-bit
// integer, 2 a 64-bit integer, 3 a float, 4 a double, 5 a pointer); its bit 31 says that another kind word
// follows, and bit 30 of the first marks a failed assertion.
static __device__ unsigned __qgpu_printf_buffer[QGPU_PRINTF_WORDS + 1] __asm__("__qgpu_printf_buffer");

template <unsigned Kind, unsigned Words>
struct __qgpu_printed {
    static constexpr unsigned kind = Kind, words = Words;
    unsigned low, high;
};
// An argument as the record keeps it. Narrower integers promote to int, as for C's printf.
static __device__ __forceinline__ __qgpu_printed<1, 1> __qgpu_print(int v) { return {(unsigned)v, 0}; }
static __device__ __forceinline__ __qgpu_printed<1, 1> __qgpu_print(unsigned v) { return {v, 0}; }
template <class T>
static __device__ __forceinline__ __qgpu_printed<2, 2> __qgpu_print_wide(T v) {
    return {(unsigned)v, (unsigned)((unsigned long long)v >> 32)};
}
static __device__ __forceinline__ __qgpu_printed<2, 2> __qgpu_print(long v) { return __qgpu_print_wide(v); }
static __device__ __forceinline__ __qgpu_printed<2, 2> __qgpu_print(unsigned long v) { return __qgpu_print_wide(v); }
static __device__ __forceinline__ __qgpu_printed<2, 2> __qgpu_print(long long v) { return __qgpu_print_wide(v); }
static __device__ __forceinline__ __qgpu_printed<2, 2> __qgpu_print(unsigned long long v) {
    return __qgpu_print_wide(v);
}
static __device__ __forceinline__ __qgpu_printed<3, 1> __qgpu_print(float v) {
    return {__builtin_bit_cast(unsigned, v), 0};
}
static __device__ __forceinline__ __qgpu_printed<4, 2> __qgpu_print(double v) {
    unsigned long long bits = __builtin_bit_cast(unsigned long long, v);
    return {(unsigned)bits, (unsigned)(bits >> 32)};
}
static __device__ __forceinline__ __qgpu_printed<5, 2> __qgpu_print(const volatile void* p) {
    unsigned long long bits = (unsigned long long)p;
    return {(unsigned)bits, (unsigned)(bits >> 32)};
}

template <unsigned N>
struct __qgpu_printf_kind_words {
    unsigned word[N];
};
// The kind words of a record whose arguments print as `P...`.
template <unsigned N, class... P>
constexpr __qgpu_printf_kind_words<N> __qgpu_printf_kinds() {
    constexpr unsigned kinds[] = {P::kind..., 0u};
    __qgpu_printf_kind_words<N> out{};
    for (unsigned i = 0; i < sizeof...(P); ++i) out.word[i / 9] |= kinds[i] << (3 * (i % 9));
    for (unsigned w = 0; w + 1 < N; ++w) out.word[w] |= 0x80000000u;
    return out;
}

template <unsigned Kind, unsigned Words>
static __device__ __forceinline__ void __qgpu_printf_put(unsigned* record, unsigned& at,
                                                         __qgpu_printed<Kind, Words> v) {
    record[at++] = v.low;
    if (Words == 2) record[at++] = v.high;
}

// A record with `mark` in its first kind word: 0, or 1 << 30 for a failed assertion's message.
template <class... A>
static __device__ __forceinline__ int __qgpu_printf_marked(unsigned mark, const char* format, A... args) {
    constexpr unsigned kindWords = sizeof...(A) ? (sizeof...(A) + 8) / 9 : 1;
    constexpr unsigned words = 1 + kindWords + (0u + ... + decltype(__qgpu_print(args))::words);
    constexpr auto kinds = __qgpu_printf_kinds<kindWords, decltype(__qgpu_print(args))...>();
    if (!format) return -1;  // as CUDA's printf: nothing printed
    unsigned at = atomicAdd(&__qgpu_printf_buffer[0], words) + 1;
    if (at + words <= QGPU_PRINTF_WORDS + 1) {
        unsigned* record = &__qgpu_printf_buffer[at];
        record[0] = (unsigned)(unsigned long long)format;
        for (unsigned w = 0; w < kindWords; ++w) record[1 + w] = kinds.word[w] | (w ? 0 : mark);
        unsigned next = 1 + kindWords;
        (__qgpu_printf_put(record, next, __qgpu_print(args)), ...);
    }
    return (int)sizeof...(A);
}

template <class... A>
static __device__ __forceinline__ int __qgpu_printf(const char* format, A... args) {
    return __qgpu_printf_marked(0, format, args...);
}

// A failed device assert: CUDA's message as a marked record, then the thread exits. The host reports the
// launch as failed (CUDA's cudaErrorAssert). A GPU also stops the launch's other threads; here they run to
// their end (the memory they write is what CUDA does not give back after a failed assertion).
static __device__ __forceinline__ void __qgpu_assert_fail(const char* expression, const char* file, unsigned line,
                                                         const char* function) {
    __qgpu_printf_marked(1u << 30, "%s:%u: %s: block: [%u,%u,%u], thread: [%u,%u,%u] Assertion `%s` failed.\n", file,
                         line, function, blockIdx.x, blockIdx.y, blockIdx.z, threadIdx.x, threadIdx.y, threadIdx.z,
                         expression);
    asm volatile("exit;");
}

// Clang checks every call's format against its arguments as for C's printf (a C variadic declaration, so that
// its checks see the arguments promoted as C promotes them); a mismatch is an error, since the host would
// format the argument's words as another type. printf is a macro: `::printf(...)` does not compile.
__device__ int __qgpu_printf_format(const char* format, ...) __attribute__((format(printf, 1, 2)));
#pragma clang diagnostic error "-Wformat"
#define printf(...) ((void)sizeof(__qgpu_printf_format(__VA_ARGS__)), __qgpu_printf(__VA_ARGS__))
