#include "qgpu/runtime/text/Unicode.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "UnicodeTables.h"

namespace qgpu::text {
namespace {

// The range of a sorted, disjoint table (anything with lo and hi) that holds cp, or nullptr.
template <typename Range>
const Range* findRange(const Range* table, size_t count, char32_t cp) {
    const Range* it =
        std::upper_bound(table, table + count, uint32_t(cp), [](uint32_t c, const Range& r) { return c < r.lo; });
    if (it == table) return nullptr;
    --it;
    return cp <= it->hi ? it : nullptr;
}

}  // namespace

CharClass charClass(char32_t cp) {
    if (cp < 0x80) {  // the common case, without the search
        if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') return CharClass::Letter;
        return cp >= '0' && cp <= '9' ? CharClass::Number : CharClass::Other;
    }
    const detail::CategoryRange* r = findRange(detail::kCategoryRanges, detail::kCategoryRangeCount, cp);
    return r ? r->cls : CharClass::Other;
}

bool isWhitespace(char32_t cp) {
    if (cp < 0x80) return cp == ' ' || (cp >= 0x09 && cp <= 0x0D);
    switch (cp) {
        case 0x85:
        case 0xA0:
        case 0x1680:
        case 0x2028:
        case 0x2029:
        case 0x202F:
        case 0x205F:
        case 0x3000: return true;
        default: return cp >= 0x2000 && cp <= 0x200A;
    }
}

const char* unicodeVersion() { return detail::kUnicodeVersion; }

Utf8Char decodeUtf8(std::string_view s, size_t pos) {
    auto byte = [&](size_t i) { return uint8_t(s[i]); };
    uint8_t b0 = byte(pos);
    if (b0 < 0x80) return {Utf8Char::Ok, b0, 1};
    int need;
    char32_t cp;
    uint8_t lo = 0x80, hi = 0xBF;  // the allowed range of the second byte (Unicode table 3-7)
    if (b0 >= 0xC2 && b0 <= 0xDF) {
        need = 2, cp = b0 & 0x1F;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
        need = 3, cp = b0 & 0x0F;
        if (b0 == 0xE0) lo = 0xA0;  // overlong
        if (b0 == 0xED) hi = 0x9F;  // surrogates
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
        need = 4, cp = b0 & 0x07;
        if (b0 == 0xF0) lo = 0x90;  // overlong
        if (b0 == 0xF4) hi = 0x8F;  // above U+10FFFF
    } else {
        return {};  // a continuation byte, C0/C1 (overlong) or F5..FF
    }
    for (int i = 1; i < need; ++i) {
        if (pos + i >= s.size()) return {Utf8Char::Incomplete, 0xFFFD, i};
        uint8_t b = byte(pos + i);
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF)) return {Utf8Char::Invalid, 0xFFFD, i};
        cp = cp << 6 | (b & 0x3F);
    }
    return {Utf8Char::Ok, cp, need};
}

void appendUtf8(std::string& out, char32_t cp) {
    if (cp < 0x80) {
        out += char(cp);
    } else if (cp < 0x800) {
        out += char(0xC0 | cp >> 6);
        out += char(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += char(0xE0 | cp >> 12);
        out += char(0x80 | (cp >> 6 & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    } else {
        out += char(0xF0 | cp >> 18);
        out += char(0x80 | (cp >> 12 & 0x3F));
        out += char(0x80 | (cp >> 6 & 0x3F));
        out += char(0x80 | (cp & 0x3F));
    }
}

bool isValidUtf8(std::string_view s) {
    for (size_t pos = 0; pos < s.size();) {
        Utf8Char c = decodeUtf8(s, pos);
        if (c.status != Utf8Char::Ok) return false;
        pos += c.length;
    }
    return true;
}

uint8_t combiningClass(char32_t cp) {
    if (cp < 0x300) return 0;
    const detail::CombiningClassRange* r =
        findRange(detail::kCombiningClassRanges, detail::kCombiningClassRangeCount, cp);
    return r ? r->ccc : 0;
}

// NFC, as Unicode's chapter 3.11-3.12 defines it, over code points with their combining classes.
namespace {

// A byte that is not valid UTF-8 travels through normalization as kRawByte + its value: a starter that
// neither decomposes nor composes.
constexpr char32_t kRawByte = 0x110000;

// Hangul syllables: S = SBase + (L * VCount + V) * TCount + T, with L, V, T counted from their bases.
constexpr char32_t kSBase = 0xAC00, kLBase = 0x1100, kVBase = 0x1161, kTBase = 0x11A7;
constexpr char32_t kLCount = 19, kVCount = 21, kTCount = 28, kSCount = kLCount * kVCount * kTCount;

struct ClassedChar {
    char32_t cp;
    uint8_t ccc;  // combiningClass(cp); 0 for a raw byte
};

void append(std::vector<ClassedChar>& out, char32_t cp) {
    out.push_back({cp, cp < kRawByte ? combiningClass(cp) : uint8_t(0)});
}

void decompose(char32_t cp, std::vector<ClassedChar>& out) {
    if (cp >= kSBase && cp < kSBase + kSCount) {
        char32_t s = cp - kSBase;
        append(out, kLBase + s / (kVCount * kTCount));
        append(out, kVBase + s % (kVCount * kTCount) / kTCount);
        if (s % kTCount) append(out, kTBase + s % kTCount);
        return;
    }
    const detail::Decomposition* end = detail::kDecompositions + detail::kDecompositionCount;
    const detail::Decomposition* it =
        std::lower_bound(detail::kDecompositions, end, uint32_t(cp),
                         [](const detail::Decomposition& d, uint32_t c) { return d.cp < c; });
    if (it == end || it->cp != cp) return append(out, cp);
    for (int i = 0; i < it->length; ++i) append(out, detail::kDecompositionData[it->offset + i]);
}

// The text's code points fully decomposed; invalid bytes as kRawByte + byte.
std::vector<ClassedChar> decomposed(std::string_view text) {
    std::vector<ClassedChar> out;
    out.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
        Utf8Char c = decodeUtf8(text, pos);
        if (c.status == Utf8Char::Ok) {
            decompose(c.cp, out);
        } else {
            for (int i = 0; i < c.length; ++i) append(out, kRawByte + uint8_t(text[pos + i]));
        }
        pos += c.length;
    }
    return out;
}

// Sorts each run of non-starters by combining class, keeping the order of equal classes.
void reorder(std::vector<ClassedChar>& chars) {
    auto byClass = [](const ClassedChar& a, const ClassedChar& b) { return a.ccc < b.ccc; };
    for (auto run = chars.begin(); run != chars.end();) {
        if (run->ccc == 0) {
            ++run;
            continue;
        }
        auto end = std::find_if(run, chars.end(), [](const ClassedChar& c) { return c.ccc == 0; });
        std::stable_sort(run, end, byClass);
        run = end;
    }
}

// The primary composite of (a, b), or 0.
char32_t composite(char32_t a, char32_t b) {
    if (a >= kLBase && a < kLBase + kLCount && b >= kVBase && b < kVBase + kVCount)
        return kSBase + ((a - kLBase) * kVCount + (b - kVBase)) * kTCount;
    if (a >= kSBase && a < kSBase + kSCount && (a - kSBase) % kTCount == 0 && b > kTBase && b < kTBase + kTCount)
        return a + (b - kTBase);
    const detail::Composition* end = detail::kCompositions + detail::kCompositionCount;
    const detail::Composition* it =
        std::lower_bound(detail::kCompositions, end, std::pair<uint32_t, uint32_t>(a, b),
                         [](const detail::Composition& c, const std::pair<uint32_t, uint32_t>& key) {
                             return std::pair<uint32_t, uint32_t>(c.first, c.second) < key;
                         });
    return it != end && it->first == a && it->second == b ? it->composite : 0;
}

// Composes each character with the last starter before it unless a character between them blocks it
// (a starter, or a mark of the same or a higher combining class). After reorder() the marks between are
// in ascending class order, so the last one kept decides.
void compose(std::vector<ClassedChar>& chars) {
    size_t kept = 0, starter = SIZE_MAX;
    uint8_t lastClass = 0;  // of the last character kept after the starter
    for (size_t i = 0; i < chars.size(); ++i) {
        ClassedChar c = chars[i];
        bool adjacent = kept == starter + 1;
        if (starter != SIZE_MAX && (adjacent || lastClass < c.ccc)) {
            if (char32_t p = composite(chars[starter].cp, c.cp)) {
                chars[starter] = {p, 0};
                continue;
            }
        }
        if (c.ccc == 0) starter = kept;
        lastClass = c.ccc;
        chars[kept++] = c;
    }
    chars.resize(kept);
}

}  // namespace

bool nfcQuickCheck(std::string_view text) {
    for (size_t pos = 0; pos < text.size();) {
        if (uint8_t(text[pos]) < 0x80) {
            ++pos;
            continue;
        }
        Utf8Char c = decodeUtf8(text, pos);
        if (c.status == Utf8Char::Ok && c.cp >= 0x300 &&
            findRange(detail::kNfcQuickCheckRanges, detail::kNfcQuickCheckRangeCount, c.cp))
            return false;
        pos += c.length;
    }
    return true;
}

std::string toNfc(std::string_view text) {
    if (nfcQuickCheck(text)) return std::string(text);
    std::vector<ClassedChar> chars = decomposed(text);
    reorder(chars);
    compose(chars);
    std::string out;
    out.reserve(text.size());
    for (const ClassedChar& c : chars) {
        if (c.cp >= kRawByte)
            out += char(c.cp - kRawByte);
        else
            appendUtf8(out, c.cp);
    }
    return out;
}

}  // namespace qgpu::text
