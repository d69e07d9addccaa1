#include "qgpu/core/DevicePrintf.h"

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstring>

namespace qgpu {
namespace {

constexpr int kMaxFieldWidth = 1024;

// One conversion of a format, from its '%' up to its type character.
struct Conversion {
    std::string flags;
    int width = -1, precision = -1;  // -1: not given
    bool widthArgument = false, precisionArgument = false;
    std::string length;  // hh, h, l, ll, j, z, t, L
    char type = 0;       // 0: the format ended inside the conversion
    size_t end = 0;      // the index after the conversion
};

int readNumber(const std::string& s, size_t& i) {
    int n = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') n = std::min(n * 10 + (s[i++] - '0'), 1 << 20);
    return n;
}

Conversion parseConversion(const std::string& format, size_t i) {
    Conversion c;
    while (i < format.size() && std::strchr("-+ #0", format[i])) c.flags += format[i++];
    if (i < format.size() && format[i] == '*')
        c.widthArgument = true, ++i;
    else if (i < format.size() && format[i] >= '0' && format[i] <= '9')
        c.width = readNumber(format, i);
    if (i < format.size() && format[i] == '.') {
        ++i;
        if (i < format.size() && format[i] == '*')
            c.precisionArgument = true, ++i;
        else
            c.precision = readNumber(format, i);
    }
    while (i < format.size() && std::strchr("hljztLq", format[i])) c.length += format[i++];
    if (i < format.size()) c.type = format[i++];
    c.end = i;
    return c;
}

// The C format of one value: `c` with its width and precision filled in, and `length` and `type` for it.
std::string cSpec(const Conversion& c, const char* length, char type) {
    std::string spec = "%" + c.flags;
    if (c.width >= 0) spec += std::to_string(std::min(c.width, kMaxFieldWidth));
    if (c.precision >= 0) spec += "." + std::to_string(std::min(c.precision, kMaxFieldWidth));
    return spec + length + type;
}

template <class T>
std::string cFormat(const std::string& spec, T value) {
    int n = std::snprintf(nullptr, 0, spec.c_str(), value);
    if (n <= 0) return {};
    std::string out(size_t(n) + 1, '\0');
    std::snprintf(out.data(), out.size(), spec.c_str(), value);
    out.resize(size_t(n));
    return out;
}

double floatValue(const PrintfArgument& a) {
    if (a.kind == 3) return double(std::bit_cast<float>(uint32_t(a.bits)));
    return std::bit_cast<double>(a.bits);
}

int64_t signedValue(const PrintfArgument& a, const std::string& length) {
    int64_t v = a.kind == 1 ? int64_t(int32_t(uint32_t(a.bits))) : int64_t(a.bits);
    if (length == "hh") return int64_t(int8_t(v));
    return length == "h" ? int64_t(int16_t(v)) : v;
}

uint64_t unsignedValue(const PrintfArgument& a, const std::string& length) {
    uint64_t v = a.kind == 1 ? uint64_t(uint32_t(a.bits)) : a.bits;
    if (length == "hh") return uint64_t(uint8_t(v));
    return length == "h" ? uint64_t(uint16_t(v)) : v;
}

// The text of conversion `c` of `a`.
std::string formatOne(const Conversion& c, const PrintfArgument& a, const std::vector<uint32_t>& global) {
    switch (c.type) {
        case 'd':
        case 'i': return cFormat(cSpec(c, "ll", c.type), (long long)signedValue(a, c.length));
        case 'u':
        case 'o':
        case 'x':
        case 'X': return cFormat(cSpec(c, "ll", c.type), (unsigned long long)unsignedValue(a, c.length));
        case 'c': return cFormat(cSpec(c, "", 'c'), int(uint8_t(a.bits)));
        case 'p': return cFormat(cSpec(c, "", 'p'), reinterpret_cast<void*>(uintptr_t(a.bits)));
        case 's': {
            if (a.bits == 0) return cFormat(cSpec(c, "", 's'), "(null)");
            size_t limit = c.precision >= 0 ? size_t(std::min(c.precision, kMaxFieldWidth)) : 4096;
            return cFormat(cSpec(c, "", 's'), readGlobalString(global, a.bits, limit).c_str());
        }
        case 'n': return {};
        default: return cFormat(cSpec(c, "", c.type), floatValue(a));  // f F e E g G a A
    }
}

bool isConversionType(char type) { return type && std::strchr("diuoxXcpsnfFeEgGaA", type); }

// Takes `*` widths and precisions from the arguments; false when they run out.
bool takeStars(Conversion& c, const std::vector<PrintfArgument>& arguments, size_t& next) {
    if (c.widthArgument) {
        if (next >= arguments.size()) return false;
        int64_t width = int32_t(uint32_t(arguments[next++].bits));
        if (width < 0) c.flags += '-';  // as C reads a negative width
        c.width = int(std::min<int64_t>(width < 0 ? -width : width, kMaxFieldWidth));
    }
    if (c.precisionArgument) {
        if (next >= arguments.size()) return false;
        int32_t precision = int32_t(uint32_t(arguments[next++].bits));
        c.precision = precision < 0 ? -1 : precision;  // a negative one counts as not given
    }
    return true;
}

int argumentWords(int kind) { return kind == 1 || kind == 3 ? 1 : 2; }

constexpr uint32_t kMoreKinds = 1u << 31, kFailedAssertion = 1u << 30;

// The record at word `at` of the buffer that ends before word `end`, and its length in words (0 when the
// words there are not a record: the rest of the buffer, or words a kernel wrote over).
int readRecord(const std::vector<uint32_t>& global, size_t at, size_t end, PrintedRecord& record) {
    uint32_t format = global[at];
    if (!format) return 0;
    size_t k = at + 1;
    std::vector<PrintfArgument> arguments;
    record = {int(at), {}, at + 1 < end && (global[at + 1] & kFailedAssertion)};
    for (bool more = true; more && k < end; ++k) {
        uint32_t kinds = global[k];
        more = kinds & kMoreKinds;
        for (int i = 0; i < 9 && (kinds >> (3 * i)) & 7; ++i) arguments.push_back({int((kinds >> (3 * i)) & 7), 0});
    }
    for (PrintfArgument& a : arguments) {
        if (a.kind > 5 || k + size_t(argumentWords(a.kind)) > end) return 0;
        a.bits = global[k] | (argumentWords(a.kind) == 2 ? uint64_t(global[k + 1]) << 32 : 0);
        k += size_t(argumentWords(a.kind));
    }
    if (k > end) return 0;
    record.text = formatDevicePrintf(readGlobalString(global, format), arguments, global);
    return int(k - at);
}

}  // namespace

std::string readGlobalString(const std::vector<uint32_t>& global, uint64_t address, size_t limit) {
    std::string out;
    for (uint64_t b = address; out.size() < limit && b / 4 < global.size(); ++b) {
        char c = char(global[size_t(b / 4)] >> (8 * (b % 4)));
        if (!c) break;
        out += c;
    }
    return out;
}

std::string formatDevicePrintf(const std::string& format, const std::vector<PrintfArgument>& arguments,
                               const std::vector<uint32_t>& global) {
    std::string out;
    size_t next = 0;
    for (size_t i = 0; i < format.size();) {
        if (format[i] != '%') {
            out += format[i++];
            continue;
        }
        Conversion c = parseConversion(format, i + 1);
        if (c.type == '%')
            out += '%';
        else if (!isConversionType(c.type) || !takeStars(c, arguments, next) || next >= arguments.size())
            out += format.substr(i, c.end - i);
        else
            out += formatOne(c, arguments[next++], global);
        i = c.end;
    }
    return out;
}

DevicePrintfOutput readDevicePrintf(const std::vector<uint32_t>& global, const MemoryMap& map) {
    DevicePrintfOutput out;
    const ArrayPlacement* buffer = map.find(kPrintfBufferName);
    if (!buffer || buffer->size < 1 || size_t(buffer->base + buffer->size) > global.size()) return out;
    out.bufferWords = buffer->size - 1;
    uint32_t asked = global[size_t(buffer->base)];
    size_t start = size_t(buffer->base) + 1, end = start + std::min<size_t>(asked, size_t(out.bufferWords));
    size_t at = start;
    for (PrintedRecord record; at < end;) {
        int words = readRecord(global, at, end, record);
        if (!words) break;
        out.records.push_back(record);
        at += size_t(words);
    }
    uint64_t written = at - start;
    out.droppedWords = asked > written ? int(std::min<uint64_t>(asked - written, uint64_t(1) << 30)) : 0;
    return out;
}

std::string DevicePrintfOutput::text() const {
    std::string out;
    for (const auto& r : records) out += r.text;
    return out;
}

const PrintedRecord* DevicePrintfOutput::failedAssertion() const& {
    for (const auto& r : records)
        if (r.failedAssertion) return &r;
    return nullptr;
}

std::vector<std::string> DevicePrintfOutput::sortedTexts() const {
    std::vector<std::string> out;
    for (const auto& r : records) out.push_back(r.text);
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace qgpu
