// CUDA's vector types of 8-, 16-, 32- and 64-bit elements, with CUDA's sizes and alignments (an n-vector of a
// power of two elements aligned to its size, at most 16 bytes, a 1- or 3-vector to its element) and the make_ functions; an
// aligned vector moves as one vector load or store. The same source serves the device header and the host
// executor; uint3 and dim3 are the includer's (the host's thread indices are uint3). The includer defines
// QGPU_VECTOR_FN.
#define QGPU_VECTOR_TYPES(T, name)                                             \
    struct name##1 {                                                           \
        T x;                                                                   \
    };                                                                         \
    struct __attribute__((aligned(2 * sizeof(T)))) name##2 {                   \
        T x, y;                                                                \
    };                                                                         \
    struct __attribute__((aligned(4 * sizeof(T) > 16 ? 16 : 4 * sizeof(T)))) name##4 { \
        T x, y, z, w;                                                          \
    };                                                                         \
    QGPU_VECTOR_FN name##1 make_##name##1(T x) { return name##1 {x}; }         \
    QGPU_VECTOR_FN name##2 make_##name##2(T x, T y) { return name##2 {x, y}; } \
    QGPU_VECTOR_FN name##4 make_##name##4(T x, T y, T z, T w) { return name##4 {x, y, z, w}; }
#define QGPU_VECTOR3(T, name) \
    struct name##3 {          \
        T x, y, z;            \
    };                        \
    QGPU_VECTOR_FN name##3 make_##name##3(T x, T y, T z) { return name##3 {x, y, z}; }
QGPU_VECTOR_TYPES(signed char, char)
QGPU_VECTOR_TYPES(unsigned char, uchar)
QGPU_VECTOR_TYPES(short, short)
QGPU_VECTOR_TYPES(unsigned short, ushort)
QGPU_VECTOR_TYPES(int, int)
QGPU_VECTOR_TYPES(unsigned, uint)
QGPU_VECTOR_TYPES(float, float)
QGPU_VECTOR_TYPES(long, long)
QGPU_VECTOR_TYPES(unsigned long, ulong)
QGPU_VECTOR_TYPES(long long, longlong)
QGPU_VECTOR_TYPES(unsigned long long, ulonglong)
QGPU_VECTOR3(signed char, char)
QGPU_VECTOR3(unsigned char, uchar)
QGPU_VECTOR3(short, short)
QGPU_VECTOR3(unsigned short, ushort)
QGPU_VECTOR3(int, int)
QGPU_VECTOR3(float, float)
QGPU_VECTOR3(long, long)
QGPU_VECTOR3(unsigned long, ulong)
QGPU_VECTOR3(long long, longlong)
QGPU_VECTOR3(unsigned long long, ulonglong)
#undef QGPU_VECTOR_TYPES
#undef QGPU_VECTOR3
