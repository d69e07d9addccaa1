#include "qgpu/runtime/text/Unicode.h"

#include <algorithm>

#include "UnicodeTables.h"

namespace qgpu::text {

CharClass charClass(char32_t cp) {
    if (cp < 0x80) {  // the common case, without the search
        if ((cp | 0x20) >= 'a' && (cp | 0x20) <= 'z') return CharClass::Letter;
        return cp >= '0' && cp <= '9' ? CharClass::Number : CharClass::Other;
    }
    const detail::CategoryRange* end = detail::kCategoryRanges + detail::kCategoryRangeCount;
    const detail::CategoryRange* it =
        std::upper_bound(detail::kCategoryRanges, end, uint32_t(cp),
                         [](uint32_t c, const detail::CategoryRange& r) { return c < r.lo; });
    if (it == detail::kCategoryRanges) return CharClass::Other;
    --it;
    return cp <= it->hi ? it->cls : CharClass::Other;
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

}  // namespace qgpu::text
