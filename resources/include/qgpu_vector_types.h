// CUDA's vector types of 32-bit elements, with CUDA's sizes and alignments (a 2-vector 8 bytes, a 4-vector
// 16, a 1- or 3-vector its element's 4) and the make_ functions; an aligned 2- or 4-vector moves as one
// vector load or store. The same source serves the device header and the host executor; uint3 and dim3
// are the includer's (the host's thread indices are uint3). The includer defines QGPU_VECTOR_FN.
#define QGPU_VECTOR_TYPES(T, name)                                             \
    struct name##1 {                                                           \
        T x;                                                                   \
    };                                                                         \
    struct __attribute__((aligned(8))) name##2 {                               \
        T x, y;                                                                \
    };                                                                         \
    struct __attribute__((aligned(16))) name##4 {                              \
        T x, y, z, w;                                                          \
    };                                                                         \
    QGPU_VECTOR_FN name##1 make_##name##1(T x) { return name##1 {x}; }         \
    QGPU_VECTOR_FN name##2 make_##name##2(T x, T y) { return name##2 {x, y}; } \
    QGPU_VECTOR_FN name##4 make_##name##4(T x, T y, T z, T w) { return name##4 {x, y, z, w}; }
QGPU_VECTOR_TYPES(int, int)
QGPU_VECTOR_TYPES(unsigned, uint)
QGPU_VECTOR_TYPES(float, float)
#undef QGPU_VECTOR_TYPES
struct int3 {
    int x, y, z;
};
struct float3 {
    float x, y, z;
};
QGPU_VECTOR_FN int3 make_int3(int x, int y, int z) { return int3{x, y, z}; }
QGPU_VECTOR_FN float3 make_float3(float x, float y, float z) { return float3{x, y, z}; }
