// CUDA's warp votes, matches and reductions from shuffles (the machine has no vote instruction), so the
// same source serves the device header and the host executor. Every lane's value reaches every lane by an
// idx shuffle; a source lane that is inactive (divergence) or has exited gives the reader its own value
// instead (the interpreter notes a warning for each such read), which adds nothing to an OR and is left
// out of a match or a reduction by the active mask. Lanes outside `mask` take no part in the result.
//
// The includer defines QGPU_WARP_FN (the qualifiers), warpSize, and before this file
// __shfl_sync(unsigned, unsigned, int, int) and __qgpu_lane() (the calling lane, 0 .. warpSize - 1).

QGPU_WARP_FN unsigned __ballot_sync(unsigned mask, int predicate) {
    unsigned mine = predicate ? 1u << __qgpu_lane() : 0u, all = 0u;
    for (int lane = 0; lane < warpSize; ++lane) all |= __shfl_sync(mask, mine, lane, warpSize);
    return all & mask;
}
QGPU_WARP_FN unsigned __activemask() { return __ballot_sync(0xffffffffu, 1); }
QGPU_WARP_FN int __any_sync(unsigned mask, int predicate) { return __ballot_sync(mask, predicate) != 0u; }
QGPU_WARP_FN int __all_sync(unsigned mask, int predicate) { return __ballot_sync(mask, !predicate) == 0u; }
QGPU_WARP_FN int __uni_sync(unsigned mask, int predicate) {
    unsigned votes = __ballot_sync(mask, predicate);
    return votes == 0u || votes == (__activemask() & mask);
}

// The lanes (active and in mask) whose value equals the caller's.
QGPU_WARP_FN unsigned __match_any_sync(unsigned mask, unsigned value) {
    unsigned same = 0u;
    for (int lane = 0; lane < warpSize; ++lane)
        same |= (__shfl_sync(mask, value, lane, warpSize) == value ? 1u : 0u) << lane;
    return same & __activemask() & mask;
}
QGPU_WARP_FN unsigned __match_any_sync(unsigned mask, int value) { return __match_any_sync(mask, (unsigned)value); }
QGPU_WARP_FN unsigned __match_any_sync(unsigned mask, float value) {
    return __match_any_sync(mask, __float_as_uint(value));
}
// mask when every active lane of mask holds the caller's value (then *predicate is 1), else 0.
QGPU_WARP_FN unsigned __match_all_sync(unsigned mask, unsigned value, int* predicate) {
    *predicate = __match_any_sync(mask, value) == (__activemask() & mask);
    return *predicate ? mask : 0u;
}
QGPU_WARP_FN unsigned __match_all_sync(unsigned mask, int value, int* predicate) {
    return __match_all_sync(mask, (unsigned)value, predicate);
}
QGPU_WARP_FN unsigned __match_all_sync(unsigned mask, float value, int* predicate) {
    return __match_all_sync(mask, __float_as_uint(value), predicate);
}

// __reduce_OP_sync: OP over the values of the active lanes of mask, the same result in each of them.
#define QGPU_WARP_REDUCE(name, type, start, combine)                               \
    QGPU_WARP_FN type name(unsigned mask, type value) {                            \
        unsigned members = __activemask() & mask;                                  \
        type result = start;                                                       \
        for (int lane = 0; lane < warpSize; ++lane) {                              \
            type other = (type)__shfl_sync(mask, (unsigned)value, lane, warpSize); \
            if (members >> lane & 1u) result = combine;                            \
        }                                                                          \
        return result;                                                             \
    }
QGPU_WARP_REDUCE(__reduce_add_sync, unsigned, 0u, result + other)
QGPU_WARP_REDUCE(__reduce_add_sync, int, 0, (int)((unsigned)result + (unsigned)other))
QGPU_WARP_REDUCE(__reduce_min_sync, unsigned, 0xffffffffu, other < result ? other : result)
QGPU_WARP_REDUCE(__reduce_min_sync, int, 0x7fffffff, other < result ? other : result)
QGPU_WARP_REDUCE(__reduce_max_sync, unsigned, 0u, other > result ? other : result)
QGPU_WARP_REDUCE(__reduce_max_sync, int, (int)0x80000000, other > result ? other : result)
QGPU_WARP_REDUCE(__reduce_and_sync, unsigned, 0xffffffffu, result& other)
QGPU_WARP_REDUCE(__reduce_or_sync, unsigned, 0u, result | other)
QGPU_WARP_REDUCE(__reduce_xor_sync, unsigned, 0u, result ^ other)
#undef QGPU_WARP_REDUCE
