// Conversions between int and float: the C cast (to nearest) and the intrinsics with their rounding modes.
// Float to int saturates at the type's limits and turns NaN into 0 (as PTX's cvt does; a C cast of such a
// value is undefined, so the kernel uses the intrinsics).
__global__ void float_convert(const int* n, const float* f, float* fromInt, int* toInt) {
    int i = threadIdx.x;
    fromInt[i] = (float)n[i];
    fromInt[i + 8] = __uint2float_rz((unsigned)n[i]);
    toInt[i] = __float2int_rn(f[i]);
    toInt[i + 8] = __float2int_rd(f[i]);
    toInt[i + 16] = (int)__float2uint_ru(f[i]);
}
