// The Unicode facts the tokenizer needs: UTF-8 decoding with explicit invalid/incomplete results, the
// general-category classes of Qwen's pre-tokenizer regex (\p{L}, \p{M}, \p{N}, \s), and NFC normalization.
//
// Coverage: letters, marks and numbers come from a range table generated from Unicode 14.0 (Python's
// unicodedata, scripts/gen-unicode-tables.py) over all 17 planes, so CJK ideographs and their extensions
// (U+20000..) are letters, and emoji, symbols and punctuation are none of the three. \s is the White_Space
// property (ASCII tab..CR, space, U+0085, U+00A0, U+1680, U+2000..U+200A, U+2028, U+2029, U+202F, U+205F,
// U+3000). Newer Unicode versions differ only in code points unassigned in 14.0. NFC uses the same
// version's combining classes, decompositions and composition exclusions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace qgpu::text {

enum class CharClass : uint8_t { Other, Letter, Mark, Number };

CharClass charClass(char32_t cp);
inline bool isLetter(char32_t cp) { return charClass(cp) == CharClass::Letter; }
inline bool isMark(char32_t cp) { return charClass(cp) == CharClass::Mark; }
inline bool isNumber(char32_t cp) { return charClass(cp) == CharClass::Number; }
bool isWhitespace(char32_t cp);
const char* unicodeVersion();  // of the category table, "14.0.0"

// One step of UTF-8 decoding at a byte offset.
struct Utf8Char {
    enum Status : uint8_t { Ok, Incomplete, Invalid };
    Status status = Invalid;
    char32_t cp = 0xFFFD;  // U+FFFD unless Ok
    int length = 1;        // bytes consumed: the character, what is there of an incomplete one, or the
                           // maximal invalid subpart (at least 1)
};

// Decodes the character starting at `pos` (< s.size()). Overlong forms, surrogates and code points
// above U+10FFFF are Invalid; a valid prefix cut off by the end of `s` is Incomplete.
Utf8Char decodeUtf8(std::string_view s, size_t pos);
void appendUtf8(std::string& out, char32_t cp);
bool isValidUtf8(std::string_view s);

// Unicode Normalization Form C (UAX #15): full canonical decomposition, canonical ordering of combining
// marks by combining class, then canonical composition (composition exclusions and singletons stay
// decomposed; Hangul jamo compose arithmetically). "e\u0301" -> "\u00E9", U+212B ANGSTROM SIGN -> U+00C5,
// U+0958 -> U+0915 U+093C. Bytes that are not valid UTF-8 are kept as they are; nothing composes across them.
std::string toNfc(std::string_view text);
// True when `text` is certainly in NFC already (it has no code point that NFC could change, reorder or
// compose with what precedes it), so toNfc(text) == text. ASCII is checked without decoding.
bool nfcQuickCheck(std::string_view text);
uint8_t combiningClass(char32_t cp);  // Canonical_Combining_Class: 0 for starters

}  // namespace qgpu::text
