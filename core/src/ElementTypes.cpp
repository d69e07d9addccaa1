// Element types of launch arrays: their sizes and names, and how memory words hold them.
#include <algorithm>
#include <array>
#include <cstddef>
#include <string>

#include "qgpu/core/Launch.h"

namespace qgpu {
namespace {

struct TypeInfo {
    ElementType type;
    int bytes;
    bool isSigned;
    const char* name;
    const char* cName;
};

constexpr std::array<TypeInfo, 10> kTypes = {{
    {ElementType::I32, 4, true, "i32", "int"},
    {ElementType::U32, 4, false, "u32", "unsigned"},
    {ElementType::F32, 4, false, "f32", "float"},
    {ElementType::Bool, 1, false, "bool", "bool"},
    {ElementType::I8, 1, true, "i8", "signed char"},
    {ElementType::U8, 1, false, "u8", "unsigned char"},
    {ElementType::I16, 2, true, "i16", "short"},
    {ElementType::U16, 2, false, "u16", "unsigned short"},
    {ElementType::I64, 8, true, "i64", "long long"},
    {ElementType::U64, 8, false, "u64", "unsigned long long"},
}};

const TypeInfo& info(ElementType type) { return kTypes[size_t(type)]; }

}  // namespace

int elementBytes(ElementType type) { return info(type).bytes; }
const char* elementTypeName(ElementType type) { return info(type).name; }
const char* elementCName(ElementType type) { return info(type).cName; }

bool sameStorage(ElementType a, ElementType b) {
    return elementBytes(a) == elementBytes(b) && (a == ElementType::F32) == (b == ElementType::F32);
}

std::vector<int32_t> packElements(const std::vector<int64_t>& elements, ElementType type) {
    int bytes = elementBytes(type);
    std::vector<uint32_t> words;
    if (bytes == 8) {
        for (int64_t e : elements) words.insert(words.end(), {uint32_t(uint64_t(e)), uint32_t(uint64_t(e) >> 32)});
        return {words.begin(), words.end()};
    }
    int perWord = 4 / bytes;
    uint32_t mask = bytes == 4 ? 0xffffffffu : bytes == 1 ? 0xffu : 0xffffu;
    words.assign((elements.size() + size_t(perWord) - 1) / size_t(perWord), 0);
    for (size_t i = 0; i < elements.size(); ++i)
        words[i / size_t(perWord)] |= (uint32_t(elements[i]) & mask) << (8 * bytes * int(i % size_t(perWord)));
    return {words.begin(), words.end()};
}

std::vector<int64_t> unpackElements(const std::vector<int32_t>& words, ElementType type, size_t count) {
    const TypeInfo& t = info(type);
    std::vector<int64_t> out;
    if (t.bytes == 8) {
        for (size_t i = 0; i < count && 2 * i + 1 < words.size(); ++i)
            out.push_back(int64_t(uint64_t(uint32_t(words[2 * i])) | uint64_t(uint32_t(words[2 * i + 1])) << 32));
        return out;
    }
    int perWord = 4 / t.bytes, bits = 8 * t.bytes;
    for (size_t i = 0; i < count && i / size_t(perWord) < words.size(); ++i) {
        uint32_t up = uint32_t(words[i / size_t(perWord)]) << (32 - bits - bits * int(i % size_t(perWord)));
        out.push_back(t.isSigned || type == ElementType::F32 ? int64_t(int32_t(up) >> (32 - bits))
                                                             : int64_t(up >> (32 - bits)));
    }
    return out;
}

std::string formatElement(int64_t value, ElementType type) {
    switch (type) {
        case ElementType::F32: return formatWord(int32_t(value), true);
        case ElementType::U32: return std::to_string(uint32_t(value));
        case ElementType::U64: return std::to_string(uint64_t(value));
        case ElementType::Bool: return value == 0 ? "false" : value == 1 ? "true" : std::to_string(value);
        default: return std::to_string(value);
    }
}

}  // namespace qgpu
