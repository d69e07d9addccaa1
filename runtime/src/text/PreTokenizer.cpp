#include "qgpu/runtime/text/PreTokenizer.h"

#include <cstdint>

#include "qgpu/runtime/text/Unicode.h"

namespace qgpu::text {

const std::string_view kQwen2SplitPattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";
const std::string_view kQwen35SplitPattern =
    R"((?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+)";

namespace {

struct Char {
    char32_t cp;
    uint32_t offset;  // byte offset in the text
    CharClass cls;
    bool space;  // \s
};

std::vector<Char> decode(std::string_view text) {
    std::vector<Char> chars;
    chars.reserve(text.size());
    for (size_t pos = 0; pos < text.size();) {
        Utf8Char c = decodeUtf8(text, pos);
        bool ok = c.status == Utf8Char::Ok;
        char32_t cp = ok ? c.cp : 0xFFFD;  // one invalid byte at a time, classed as punctuation
        chars.push_back({cp, uint32_t(pos), ok ? charClass(cp) : CharClass::Other, ok && isWhitespace(cp)});
        pos += ok ? c.length : 1;
    }
    return chars;
}

class Splitter {
public:
    Splitter(const std::vector<Char>& chars, bool marks) : m_c(chars), m_n(chars.size()), m_marks(marks) {}

    // The end of the match starting at i (> i).
    size_t match(size_t i) const {
        if (size_t e = contraction(i)) return e;
        if (size_t e = word(i)) return e;
        if (m_c[i].cls == CharClass::Number) return i + 1;
        if (size_t e = punctuation(i)) return e;
        if (m_c[i].space) return whitespace(i);
        return i + 1;  // unreachable: every character is a letter, number, space or punctuation
    }

private:
    bool newline(size_t i) const { return m_c[i].cp == '\r' || m_c[i].cp == '\n'; }
    bool wordChar(size_t i) const {  // \p{L}, or [\p{L}\p{M}] in Qwen3.5
        return m_c[i].cls == CharClass::Letter || (m_marks && m_c[i].cls == CharClass::Mark);
    }
    bool punct(size_t i) const {  // [^\s\p{L}\p{N}], or [^\s\p{L}\p{M}\p{N}] in Qwen3.5
        return !m_c[i].space && !wordChar(i) && m_c[i].cls != CharClass::Number;
    }
    bool is(size_t i, char lower) const {  // case-insensitive ASCII, plus U+017F (long s) folding to 's'
        if (i >= m_n) return false;
        char32_t cp = m_c[i].cp;
        return (cp < 0x80 && char32_t(cp | 0x20) == char32_t(lower)) || (lower == 's' && cp == 0x17F);
    }

    // (?i:'s|'t|'re|'ve|'m|'ll|'d)
    size_t contraction(size_t i) const {
        if (m_c[i].cp != '\'') return 0;
        if (is(i + 1, 's') || is(i + 1, 't')) return i + 2;
        if ((is(i + 1, 'r') || is(i + 1, 'v')) && is(i + 2, 'e')) return i + 3;
        if (is(i + 1, 'm')) return i + 2;
        if (is(i + 1, 'l') && is(i + 2, 'l')) return i + 3;
        if (is(i + 1, 'd')) return i + 2;
        return 0;
    }

    // [^\r\n\p{L}\p{N}]?\p{L}+
    size_t word(size_t i) const {
        size_t j;
        bool prefix = !newline(i) && m_c[i].cls != CharClass::Letter && m_c[i].cls != CharClass::Number;
        if (prefix && i + 1 < m_n && wordChar(i + 1)) {
            j = i + 1;
        } else if (wordChar(i)) {
            j = i;
        } else {
            return 0;
        }
        while (j < m_n && wordChar(j)) ++j;
        return j;
    }

    //  ?[^\s\p{L}\p{N}]+[\r\n]*
    size_t punctuation(size_t i) const {
        size_t j;
        if (m_c[i].cp == ' ' && i + 1 < m_n && punct(i + 1)) {
            j = i + 1;
        } else if (punct(i)) {
            j = i;
        } else {
            return 0;
        }
        while (j < m_n && punct(j)) ++j;
        while (j < m_n && newline(j)) ++j;
        return j;
    }

    // \s*[\r\n]+ | \s+(?!\S) | \s+
    size_t whitespace(size_t i) const {
        size_t e = i;
        while (e < m_n && m_c[e].space) ++e;
        for (size_t k = e; k > i; --k)  // the run up to its last newline
            if (newline(k - 1)) return k;
        if (e == m_n || e - i == 1) return e;  // at the end, or one space before a non-space
        return e - 1;                          // leave the last space to what follows
    }

    const std::vector<Char>& m_c;
    size_t m_n;
    bool m_marks;
};

}  // namespace

std::vector<std::string_view> preTokenize(std::string_view text, SplitDialect dialect) {
    std::vector<Char> chars = decode(text);
    Splitter splitter(chars, dialect == SplitDialect::Qwen35);
    std::vector<std::string_view> pieces;
    for (size_t i = 0; i < chars.size();) {
        size_t e = splitter.match(i);
        size_t from = chars[i].offset, to = e < chars.size() ? chars[e].offset : text.size();
        pieces.push_back(text.substr(from, to - from));
        i = e;
    }
    return pieces;
}

}  // namespace qgpu::text
