// The generated tables behind charClass() (UnicodeTables.cpp) and NFC normalization
// (DecompositionTables.cpp, CompositionTables.cpp). Every table is sorted by its first field.
#pragma once

#include <cstddef>
#include <cstdint>

#include "qgpu/runtime/text/Unicode.h"

namespace qgpu::text::detail {

struct CategoryRange {
    uint32_t lo, hi;  // inclusive
    CharClass cls;
};

struct CombiningClassRange {
    uint32_t lo, hi;  // inclusive; code points outside every range have class 0 (starters)
    uint8_t ccc;      // Canonical_Combining_Class
};

// A code point's full canonical decomposition, canonically ordered: kDecompositionData[offset..offset+length).
// Hangul syllables are not listed (their decomposition is arithmetic).
struct Decomposition {
    uint32_t cp;
    uint16_t offset;
    uint8_t length;
};

// The primary composite of a canonical pair: what NFC composes `first` followed by `second` into.
// Composition exclusions, singletons and non-starter decompositions are not listed; Hangul is arithmetic.
struct Composition {
    uint32_t first, second, composite;
};

struct CodePointRange {
    uint32_t lo, hi;  // inclusive
};

extern const char* const kUnicodeVersion;
extern const CategoryRange kCategoryRanges[];  // disjoint
extern const size_t kCategoryRangeCount;
extern const CombiningClassRange kCombiningClassRanges[];  // disjoint
extern const size_t kCombiningClassRangeCount;
extern const char32_t kDecompositionData[];
extern const Decomposition kDecompositions[];
extern const size_t kDecompositionCount;
extern const Composition kCompositions[];  // sorted by (first, second)
extern const size_t kCompositionCount;
// The code points that may make NFC change a text: NFC_QC No or Maybe, or a nonzero combining class.
// Text without any of them is already in NFC.
extern const CodePointRange kNfcQuickCheckRanges[];  // disjoint
extern const size_t kNfcQuickCheckRangeCount;

}  // namespace qgpu::text::detail
