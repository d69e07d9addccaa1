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

constexpr std::array<TypeInfo, 8> kTypes = {{
    {ElementType::I32, 4, true, "i32", "int"},
    {ElementType::U32, 4, false, "u32", "unsigned"},
    {ElementType::F32, 4, false, "f32", "float"},
    {ElementType::Bool, 1, false, "bool", "bool"},
    {ElementType::I8, 1, true, "i8", "signed char"},
    {ElementType::U8, 1, false, "u8", "unsigned char"},
    {ElementType::I16, 2, true, "i16", "short"},
    {ElementType::U16, 2, false, "u16", "unsigned short"},
}};

const TypeInfo& info(ElementType type) { return kTypes[size_t(type)]; }

}  // namespace

int elementBytes(ElementType type) { return info(type).bytes; }
const char* elementTypeName(ElementType type) { return info(type).name; }
const char* elementCName(ElementType type) { return info(type).cName; }

bool sameStorage(ElementType a, ElementType b) {
    return elementBytes(a) == elementBytes(b) && (a == ElementType::F32) == (b == ElementType::F32);
}

std::vector<int32_t> packElements(const std::vector<int32_t>& elements, ElementType type) {
    int bytes = elementBytes(type);
    if (bytes == 4) return elements;
    int perWord = 4 / bytes;
    uint32_t mask = bytes == 1 ? 0xffu : 0xffffu;
    std::vector<uint32_t> words((elements.size() + size_t(perWord) - 1) / size_t(perWord), 0);
    for (size_t i = 0; i < elements.size(); ++i)
        words[i / size_t(perWord)] |= (uint32_t(elements[i]) & mask) << (8 * bytes * int(i % size_t(perWord)));
    return {words.begin(), words.end()};
}

std::vector<int32_t> unpackElements(const std::vector<int32_t>& words, ElementType type, size_t count) {
    const TypeInfo& t = info(type);
    if (t.bytes == 4) return {words.begin(), words.begin() + std::ptrdiff_t(std::min(count, words.size()))};
    int perWord = 4 / t.bytes, bits = 8 * t.bytes;
    std::vector<int32_t> out;
    for (size_t i = 0; i < count && i / size_t(perWord) < words.size(); ++i) {
        uint32_t up = uint32_t(words[i / size_t(perWord)]) << (32 - bits - bits * int(i % size_t(perWord)));
        out.push_back(t.isSigned ? int32_t(up) >> (32 - bits) : int32_t(up >> (32 - bits)));
    }
    return out;
}

std::string formatElement(int32_t value, ElementType type) {
    switch (type) {
        case ElementType::F32: return formatWord(value, true);
        case ElementType::U32: return std::to_string(uint32_t(value));
        case ElementType::Bool: return value == 0 ? "false" : value == 1 ? "true" : std::to_string(value);
        default: return std::to_string(value);
    }
}

}  // namespace qgpu
