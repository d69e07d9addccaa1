// A reader of the DWARF (versions 2 to 4) in a PTX file's debug sections, where each section is written as
// data directives: `.b8 17`, `.b32 2329`, `.b64 $L__func_begin0` (a symbol: a label or a variable).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace qgpu::dwarf {

// The DWARF constants the variable reader uses.
// clang-format off
enum Tag : uint64_t {
    kArrayType = 0x01, kEnumerationType = 0x04, kFormalParameter = 0x05, kLexicalBlock = 0x0b,
    kPointerType = 0x0f, kReferenceType = 0x10, kTypedef = 0x16, kSubrangeType = 0x21, kConstType = 0x26,
    kSubprogram = 0x2e, kVariable = 0x34, kVolatileType = 0x35, kRestrictType = 0x37,
    kRvalueReferenceType = 0x42
};
enum Attr : uint64_t {
    kLocation = 0x02, kName = 0x03, kByteSize = 0x0b, kLowPc = 0x11, kHighPc = 0x12, kUpperBound = 0x2f,
    kAbstractOrigin = 0x31, kCount = 0x37, kDeclLine = 0x3b, kEncoding = 0x3e, kSpecification = 0x47,
    kType = 0x49
};
enum Encoding : uint64_t {
    kBoolean = 0x02, kFloat = 0x04, kSigned = 0x05, kSignedChar = 0x06, kUnsigned = 0x07, kUnsignedChar = 0x08
};
// clang-format on

// A section's bytes, and the symbols its .b32/.b64 entries name, by the offset of the entry.
struct Section {
    std::vector<uint8_t> bytes;
    std::map<size_t, std::string> symbols;
};
Section readSection(const std::vector<std::string>& lines);

struct Value {
    uint64_t number = 0;         // constants, flags, references (offsets in the unit), addresses
    std::string text;            // strings
    std::vector<uint8_t> block;  // blocks and expressions
    size_t blockOffset = 0;      // where the block starts in .debug_info (to find the symbols it names)
    std::string symbol;          // an address or offset that names a symbol
};

struct Die {
    uint64_t tag = 0;
    std::map<uint64_t, Value> attributes;
    std::vector<size_t> children;  // offsets in the unit

    const Value* get(uint64_t attribute) const;
};

// The first compile unit's entries by their offset in the unit (what references hold).
struct Tree {
    std::map<size_t, Die> dies;
    size_t root = 0;
    const Section* info = nullptr;
    int addressBytes = 8;

    const Die* at(size_t offset) const;
};

// Thrown for debug information the reader does not follow: a DWARF 5 unit, a form it does not know, data
// that ends early.
struct Unreadable : std::runtime_error {
    using std::runtime_error::runtime_error;
};

Tree readTree(const Section& info, const Section& abbrev, const Section& str);

// A location that is `DW_OP_addr SYMBOL`, optionally then `DW_OP_plus_uconst N` (where -O0 keeps a
// variable): the symbol and N. Nothing for any other expression.
struct SymbolOffset {
    std::string symbol;
    uint64_t offset = 0;
};
std::optional<SymbolOffset> symbolPlusOffset(const Tree& tree, const Value& location);

}  // namespace qgpu::dwarf
