#include "DwarfTree.h"

#include <cctype>
#include <cstdlib>

#include "PtxText.h"

namespace qgpu::dwarf {

namespace {

// The attribute forms the reader takes.
// clang-format off
enum Form : uint64_t {
    kAddr = 0x01, kBlock2 = 0x03, kBlock4 = 0x04, kData2 = 0x05, kData4 = 0x06, kData8 = 0x07, kString = 0x08,
    kBlock = 0x09, kBlock1 = 0x0a, kData1 = 0x0b, kFlag = 0x0c, kSdata = 0x0d, kStrp = 0x0e, kUdata = 0x0f,
    kRefAddr = 0x10, kRef1 = 0x11, kRef2 = 0x12, kRef4 = 0x13, kRef8 = 0x14, kRefUdata = 0x15,
    kIndirect = 0x16, kSecOffset = 0x17, kExprloc = 0x18, kFlagPresent = 0x19
};
enum Op : uint8_t { kOpAddr = 0x03, kOpPlusUconst = 0x23 };
// clang-format on

int directiveBytes(const std::string& d) {
    return d == ".b8" ? 1 : d == ".b16" ? 2 : d == ".b32" ? 4 : d == ".b64" ? 8 : 0;
}

// Bytes read from a section, at a position; past the end is Unreadable.
class Cursor {
public:
    Cursor(const Section& s, size_t pos) : m_s(s), m_pos(pos) {}
    size_t pos() const { return m_pos; }
    uint8_t byte() {
        if (m_pos >= m_s.bytes.size()) throw Unreadable("the debug information ends early");
        return m_s.bytes[m_pos++];
    }
    uint64_t fixed(int n) {
        uint64_t v = 0;
        for (int i = 0; i < n; ++i) v |= uint64_t(byte()) << (8 * i);
        return v;
    }
    uint64_t uleb() {
        uint64_t v = 0;
        for (int shift = 0;; shift += 7) {
            uint8_t b = byte();
            if (shift < 64) v |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
    }
    int64_t sleb() {
        int64_t v = 0;
        int shift = 0;
        uint8_t b;
        do {
            b = byte();
            if (shift < 64) v |= int64_t(b & 0x7f) << shift;
            shift += 7;
        } while (b & 0x80);
        if (shift < 64 && (b & 0x40)) v |= -(int64_t(1) << shift);
        return v;
    }
    std::string cstring() {
        std::string s;
        for (uint8_t b = byte(); b; b = byte()) s += char(b);
        return s;
    }
    std::vector<uint8_t> block(size_t n) {
        std::vector<uint8_t> b;
        for (size_t i = 0; i < n; ++i) b.push_back(byte());
        return b;
    }
    std::string symbolAt(size_t offset) const {
        auto it = m_s.symbols.find(offset);
        return it == m_s.symbols.end() ? "" : it->second;
    }

private:
    const Section& m_s;
    size_t m_pos;
};

struct Abbrev {
    uint64_t tag = 0;
    bool children = false;
    std::vector<std::pair<uint64_t, uint64_t>> specs;  // attribute, form
};

std::map<uint64_t, Abbrev> readAbbrevs(const Section& abbrev) {
    std::map<uint64_t, Abbrev> out;
    Cursor c(abbrev, 0);
    for (uint64_t code = c.uleb(); code != 0; code = c.uleb()) {
        Abbrev& a = out[code];
        a.tag = c.uleb();
        a.children = c.byte() != 0;
        for (;;) {
            uint64_t attribute = c.uleb(), form = c.uleb();
            if (!attribute && !form) break;
            a.specs.emplace_back(attribute, form);
        }
    }
    return out;
}

std::string stringAt(const Section& str, uint64_t offset) {
    Cursor c(str, size_t(offset));
    return c.cstring();
}

Value readBlock(Cursor& c, size_t length) {
    Value v;
    v.blockOffset = c.pos();
    v.block = c.block(length);
    return v;
}

Value readValue(Cursor& c, uint64_t form, int addressBytes, const Section& str) {
    Value v;
    size_t at = c.pos();
    switch (form) {
        case kAddr: v.number = c.fixed(addressBytes); break;
        case kBlock1: return readBlock(c, c.byte());
        case kBlock2: return readBlock(c, size_t(c.fixed(2)));
        case kBlock4: return readBlock(c, size_t(c.fixed(4)));
        case kBlock:
        case kExprloc: return readBlock(c, size_t(c.uleb()));
        case kData1:
        case kRef1:
        case kFlag: v.number = c.byte(); break;
        case kData2:
        case kRef2: v.number = c.fixed(2); break;
        case kData4:
        case kRef4:
        case kSecOffset:
        case kRefAddr: v.number = c.fixed(4); break;
        case kData8:
        case kRef8: v.number = c.fixed(8); break;
        case kSdata: v.number = uint64_t(c.sleb()); break;
        case kUdata:
        case kRefUdata: v.number = c.uleb(); break;
        case kString: v.text = c.cstring(); break;
        case kStrp: v.text = stringAt(str, c.fixed(4)); break;
        case kFlagPresent: v.number = 1; break;
        case kIndirect: return readValue(c, c.uleb(), addressBytes, str);
        default: throw Unreadable("the debug information uses DWARF form " + std::to_string(form));
    }
    v.symbol = c.symbolAt(at);
    return v;
}

}  // namespace

Section readSection(const std::vector<std::string>& lines) {
    Section s;
    for (const std::string& line : lines) {
        std::string code = ptx::trim(line.substr(0, line.find("//")));
        size_t space = code.find_first_of(" \t");
        int bytes = directiveBytes(code.substr(0, space));
        if (!bytes || space == std::string::npos) continue;
        for (const std::string& item : ptx::split(code.substr(space), ',')) {
            uint64_t value = 0;
            if (!item.empty() && (std::isdigit(static_cast<unsigned char>(item[0])) || item[0] == '-'))
                value = item[0] == '-' ? uint64_t(std::strtoll(item.c_str(), nullptr, 0))
                                       : std::strtoull(item.c_str(), nullptr, 0);  // out of range: the limit
            else if (!item.empty())
                s.symbols[s.bytes.size()] = item.substr(0, item.find('+'));
            for (int i = 0; i < bytes; ++i) s.bytes.push_back(uint8_t(value >> (8 * i)));
        }
    }
    return s;
}

const Value* Die::get(uint64_t attribute) const {
    auto it = attributes.find(attribute);
    return it == attributes.end() ? nullptr : &it->second;
}

const Die* Tree::at(size_t offset) const {
    auto it = dies.find(offset);
    return it == dies.end() ? nullptr : &it->second;
}

Tree readTree(const Section& info, const Section& abbrev, const Section& str) {
    std::map<uint64_t, Abbrev> abbrevs = readAbbrevs(abbrev);
    Cursor c(info, 0);
    uint64_t length = c.fixed(4);
    uint64_t version = c.fixed(2);
    if (length >= 0xfffffff0 || version < 2 || version > 4)
        throw Unreadable("the debug information is DWARF " + std::to_string(version) + " or 64-bit DWARF");
    c.fixed(4);  // the abbreviation table's offset: the reader takes the first table
    Tree tree;
    tree.info = &info;
    tree.addressBytes = c.byte();
    int addressBytes = tree.addressBytes;
    size_t end = 4 + size_t(length);
    std::vector<size_t> parents;
    while (c.pos() < end) {
        size_t offset = c.pos();
        uint64_t code = c.uleb();
        if (code == 0) {  // the end of a parent's children
            if (!parents.empty()) parents.pop_back();
            continue;
        }
        auto a = abbrevs.find(code);
        if (a == abbrevs.end()) throw Unreadable("the debug information names a missing abbreviation");
        Die& die = tree.dies[offset];
        die.tag = a->second.tag;
        for (const auto& [attribute, form] : a->second.specs)
            die.attributes[attribute] = readValue(c, form, addressBytes, str);
        if (parents.empty())
            tree.root = offset;
        else
            tree.dies[parents.back()].children.push_back(offset);
        if (a->second.children) parents.push_back(offset);
    }
    return tree;
}

std::optional<SymbolOffset> symbolPlusOffset(const Tree& tree, const Value& location) {
    size_t end = location.blockOffset + location.block.size();
    Cursor c(*tree.info, location.blockOffset);
    if (location.block.empty() || c.byte() != kOpAddr) return std::nullopt;
    SymbolOffset out{c.symbolAt(c.pos()), 0};
    c.fixed(tree.addressBytes);
    if (c.pos() < end) {
        if (c.byte() != kOpPlusUconst) return std::nullopt;
        out.offset = c.uleb();
    }
    if (out.symbol.empty() || c.pos() != end) return std::nullopt;
    return out;
}

}  // namespace qgpu::dwarf
