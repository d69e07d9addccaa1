// The generated category table behind charClass() (UnicodeTables.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

#include "qgpu/runtime/text/Unicode.h"

namespace qgpu::text::detail {

struct CategoryRange {
    uint32_t lo, hi;  // inclusive
    CharClass cls;
};

extern const char* const kUnicodeVersion;
extern const CategoryRange kCategoryRanges[];  // sorted, disjoint
extern const size_t kCategoryRangeCount;

}  // namespace qgpu::text::detail
