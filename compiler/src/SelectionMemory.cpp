// Loads, stores and atomics: word addresses, vector and struct-copy accesses, bytes and halfwords of words.
#include "Selector.h"

#include <cctype>
#include <cstdlib>

namespace qgpu::lowering {

// 64-bit registers that only carry memory to memory (a struct copy: ld.u64 then st.u64 of the same
// register): each moves as two words.
void Selector::findCopiedWords(std::map<std::string, int>& defs) {
    auto is64 = [](const ptx::Instruction& in) {
        std::string t = typeOf(in);
        return t == "u64" || t == "s64" || t == "b64";
    };
    for (const auto& in : m_fn.body)
        if (in.parts[0] == "ld" && !in.has("param") && is64(in) && !in.operands.empty() &&
            defs[in.operands[0].name] == 1)
            m_copiedWords.insert(in.operands[0].name);
    for (const auto& in : m_fn.body)
        for (size_t i = 0; i < in.operands.size(); ++i) {
            bool definition = i == 0 && in.parts[0] == "ld";
            bool storedValue = i == 1 && in.parts[0] == "st" && is64(in);
            if (!definition && !storedValue) m_copiedWords.erase(in.operands[i].name);
        }
}

std::vector<Operand> Selector::copiedWordHalves(const Operand& o) const {
    return {{Kind::Reg, o.name + ".lo", 0, false}, {Kind::Reg, o.name + ".hi", 0, false}};
}

void Selector::loadParam(const ptx::Instruction& in) {
    const Operand& addr = in.operands.at(1);
    auto it = m_paramIndex.find(addr.name);
    if (it == m_paramIndex.end() || addr.value != 0) fail("unexpected parameter access " + addr.name);
    emitSymbol(vreg(in.operands[0].name), "#" + std::to_string(it->second));
}

int Selector::sharedBase(const std::string& symbol) {
    for (const auto& s : m_out.shared)
        if (s.name == symbol) return s.base;
    fail("unknown memory symbol " + symbol + " (only __shared__ arrays and kernel parameters are supported)");
}

// [reg + offset] or [symbol + offset] -> (rs1, imm in words), and which memory it is in.
std::pair<int, uint32_t> Selector::address(const Operand& a, Space& space) {
    if (a.kind != Kind::Address) fail("expected a memory operand");
    if (a.value % 4) fail("an access that is not at a whole 32-bit word: the machine addresses words");
    if (a.name.empty()) fail("absolute addresses are not supported");
    if (a.name[0] != '%') {
        space = Space::Shared;
        return {kZeroReg, uint32_t(sharedBase(a.name) + a.value / 4)};
    }
    Operand base{Kind::Reg, a.name, 0, false};
    if (space == Space::Unknown) space = wideOf(base).space;
    return {asWord(base), uint32_t(a.value / 4)};
}

void Selector::memory(const ptx::Instruction& in) {
    const std::string& op = in.parts[0];
    const auto& o = in.operands;
    if (in.has("local")) fail("local arrays are not supported: use registers or __shared__ memory");
    if (in.has("const")) fail("__constant__ memory is not supported: pass arrays as kernel parameters");
    std::string t = typeOf(in);
    const Operand* data = op == "ld" ? &o.at(0) : op == "st" ? &o.at(1) : nullptr;
    bool copied = data && m_copiedWords.count(data->name);
    if ((op == "ld" || op == "st") && bitsOf(t) < 32) return narrowMemory(in);
    if (t != "u32" && t != "s32" && t != "b32" && t != "f32" && !copied) {
        fail("only 32-bit memory accesses are supported (found ." + t + "): use int or float arrays");
    }
    Space space = in.has("shared") ? Space::Shared : in.has("global") ? Space::Global : Space::Unknown;
    bool store = op == "st" || op == "red";
    auto [base, offset] = address(store ? o.at(0) : o.at(1), space);
    if (space == Space::Unknown || space == Space::Mixed)
        fail("cannot tell whether this pointer is global or shared memory; index arrays directly");
    bool shared = space == Space::Shared;
    if (op == "ld" || op == "st") {  // .v2 and .v4: one word per element, at consecutive addresses
        std::vector<Operand> elements = copied ? copiedWordHalves(*data) : vectorElements(*data);
        for (size_t i = 0; i < elements.size(); ++i) {
            const Operand& e = elements[i];
            uint32_t at = offset + uint32_t(i);
            if (op == "ld") {
                if (e.kind == Kind::Reg)
                    emit(shared ? Opcode::LdShared : Opcode::LdGlobal, vreg(e.name), base, imm(at));
                continue;
            }
            int value = reg32(e);
            VInst v = located(shared ? Opcode::StShared : Opcode::StGlobal);
            v.rs1 = base, v.imm = at, v.rs2 = value;
            block().body.push_back(v);
        }
        return;
    }
    if (in.has("v2") || in.has("v4")) fail("vector atomics are not supported");
    if (!in.has("add") || t == "f32") {  // a routine at the word's address, one lane after another
        int address = temp(), old = op == "red" ? temp() : vreg(o[0].name);
        emit(Opcode::Add, address, base, imm(offset));
        if (!in.has("add")) return integerAtomic(in, old, address, shared);
        return floatAtomicAdd(old, address, reg32(op == "red" ? o[1] : o[2]), shared);
    }
    int value = reg32(op == "red" ? o[1] : o[2]);
    VInst v = located(shared ? Opcode::AtomShared : Opcode::AtomGlobal);
    v.rd = op == "red" ? kZeroReg : vreg(o[0].name), v.rs1 = base, v.imm = offset, v.rs2 = value;
    block().body.push_back(v);
}

// A byte or halfword of a word: Clang narrows `x >> 24` or `x & 0xFFFF` of an int to such a load, and a
// read-modify-write of part of an int to such a store. The word is read (and written back) whole; the
// byte's place comes from the address offset (the base is a word address).
void Selector::narrowMemory(const ptx::Instruction& in) {
    const auto& o = in.operands;
    bool load = in.parts[0] == "ld";
    std::string t = typeOf(in);
    int bits = bitsOf(t);
    if (in.has("v2") || in.has("v4")) fail("vector accesses of bytes or halfwords are not supported: use int");
    Operand at = load ? o.at(1) : o.at(0);
    if (at.kind != Kind::Address || at.name.empty() ||
        (at.name[0] == '%' && wideOf({Kind::Reg, at.name, 0, false}).rep != Rep::Word))
        fail("a byte or halfword access through a computed byte address: index int arrays instead");
    if (at.kind == Kind::Address && m_inexactWords.count(at.name))
        fail(
            "an element of a bool, char or short array at an index computed at run time: the machine's memory "
            "holds 32-bit words and cannot yet address a byte inside one; use an int array (one element a word)");
    int64_t byte = ((at.value % 4) + 4) % 4;
    if (byte * 8 + bits > 32) fail("a halfword access that crosses a word: index int arrays instead");
    at.value -= byte;
    Space space = in.has("shared") ? Space::Shared : in.has("global") ? Space::Global : Space::Unknown;
    auto [base, offset] = address(at, space);
    if (space == Space::Unknown || space == Space::Mixed)
        fail("cannot tell whether this pointer is global or shared memory; index arrays directly");
    bool shared = space == Space::Shared;
    int word = temp();
    emit(shared ? Opcode::LdShared : Opcode::LdGlobal, word, base, imm(offset));
    int shift = int(byte * 8);
    if (load) {
        int up = temp();
        emit(Opcode::Shl, up, word, imm(32 - bits - shift));
        return emit(t[0] == 's' ? Opcode::Sra : Opcode::Shr, vreg(o[0].name), up, imm(32 - bits));
    }
    uint32_t field = uint32_t(((uint64_t(1) << bits) - 1) << shift);
    int kept = temp(), part = temp(), placed = temp(), merged = temp();
    emit(Opcode::And, kept, word, imm(~field));
    emit(Opcode::Shl, part, reg32(o[1]), imm(shift));
    emit(Opcode::And, placed, part, imm(field));
    emit(Opcode::Or, merged, kept, reg(placed));
    VInst v = located(shared ? Opcode::StShared : Opcode::StGlobal);
    v.rs1 = base, v.imm = offset, v.rs2 = merged;
    block().body.push_back(v);
}

// The elements of a `{%r1, %r2}` operand (`_` is an element a load discards), or the operand itself.
std::vector<Operand> Selector::vectorElements(const Operand& v) {
    if (v.kind != Kind::Vector) return {v};
    std::vector<Operand> out;
    std::string inner = v.name.substr(1, v.name.size() - 2), cur;
    for (char c : inner + ",") {
        if (c != ',') {
            if (!std::isspace(static_cast<unsigned char>(c))) cur += c;
            continue;
        }
        if (cur == "_")
            out.push_back({Kind::Symbol, cur, 0, false});
        else if (!cur.empty() && cur[0] == '%')
            out.push_back({Kind::Reg, cur, 0, false});
        else if (!cur.empty() && (std::isdigit(static_cast<unsigned char>(cur[0])) || cur[0] == '-'))
            out.push_back({Kind::Imm, "", std::strtoll(cur.c_str(), nullptr, 0), false});
        else
            fail("unexpected vector element '" + cur + "'");
        cur.clear();
    }
    return out;
}

}  // namespace qgpu::lowering
