// Loads, stores and atomics: word addresses, vector and struct-copy accesses, bytes and halfwords of words.
#include "SequenceHelpers.h"
#include "PtxParsing.h"
#include "Selector.h"

namespace qgpu::lowering {

void Selector::loadParam(const ptx::Instruction& in) {
    const Operand& addr = in.operands.at(1);
    auto it = m_paramIndex.find(addr.name);
    if (it == m_paramIndex.end() || addr.value != 0) fail("unexpected parameter access " + addr.name);
    std::string symbol = "#" + std::to_string(it->second);
    int low = vreg(in.operands[0].name);
    emitSymbol(low, symbol);
    if (!isPair(in.operands[0])) return;
    int high = vreg(in.operands[0].name + kHighWordSuffix);
    if (is64BitType(typeOf(in))) return emitSymbol(high, symbol + kHighWordSuffix);
    // ld.param.u32 (or .s32) of a 32-bit parameter into a 64-bit register: the load's extension
    emit(typeOf(in)[0] == 's' ? Opcode::Sra : Opcode::Mov, high, typeOf(in)[0] == 's' ? low : kZeroReg,
         typeOf(in)[0] == 's' ? imm(31) : imm(0));
}

int Selector::sharedBase(const std::string& symbol) {
    for (const auto& s : m_out.shared)
        if (s.name == symbol) return s.base;
    fail("unknown memory symbol " + symbol + " (only __shared__ arrays and kernel parameters are supported)");
}

Space Selector::resolvedSpace(Space space) const {
    if (space == Space::Local || (space == Space::Unknown && m_module.shared.empty())) return Space::Global;
    if (space == Space::Unknown || space == Space::Mixed)
        fail(std::string("cannot tell whether this pointer is global or shared memory; index arrays directly") +
             (m_module.debug ? " (at -O0 every pointer passes through local memory and loses which memory it points "
                               "to: build with -O1 or higher)"
                             : ""));
    return space;
}

// The memory an instruction names: __constant__ memory is global memory the kernel does not write.
Space Selector::spaceOf(const ptx::Instruction& in) {
    if (in.has("shared")) return Space::Shared;
    if (in.has("local")) return Space::Local;
    return in.has("global") || in.has("const") ? Space::Global : Space::Unknown;
}

// [reg + offset] or [symbol + offset] -> (rs1, imm in words), and which memory it is in.
std::pair<int, uint32_t> Selector::address(const Operand& a, Space& space) {
    if (a.kind != Kind::Address) fail("expected a memory operand");
    if (a.value % 4) fail("an access that is not at a whole 32-bit word: the machine addresses words");
    if (a.name.empty()) fail("absolute addresses are not supported");
    if (a.name[0] != '%' && (isGlobalSymbol(a.name) || isLocalSymbol(a.name))) {  // [table+8], [__local_depot0+8]
        space = isGlobalSymbol(a.name) ? Space::Global : Space::Local;
        int base = temp();
        symbolAddress(base, a.name, Rep::Word);
        return {base, uint32_t(a.value / 4)};
    }
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
    std::string t = typeOf(in);
    if (op == "ld" && isPair(o.at(0)) && !is64BitType(t)) return widenedLoad(in);
    if ((op == "ld" || op == "st") && bitsOf(t) < 32) return narrowMemory(in);
    Space space = spaceOf(in);
    bool store = op == "st" || op == "red";
    bool wide = is64BitType(t);
    if (!wide && t != "u32" && t != "s32" && t != "b32" && t != "f32")
        fail("memory accesses of type ." + t + " are not supported: use 8-, 16-, 32- or 64-bit integers or float");
    auto [base, offset] = address(store ? o.at(0) : o.at(1), space);
    space = resolvedSpace(space);
    bool shared = space == Space::Shared;
    if (wide && (op == "ld" || op == "st")) return pairMemory(in, base, offset, shared);
    if (wide) return pairAtomic(in, lowering::op(*this, Opcode::Add, base, imm(offset)), shared);
    if (op == "ld" || op == "st") {  // .v2 and .v4: one word per element, at consecutive addresses
        std::vector<Operand> elements = vectorElements(op == "ld" ? o.at(0) : o.at(1));
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

// ld.s32 (or .u8, ...) into a 64-bit register that is a pair: the value loaded, then its extension.
void Selector::widenedLoad(const ptx::Instruction& in) {
    ptx::Instruction narrow = in;
    Operand low = in.operands[0];
    low.name += ".value";
    narrow.operands[0] = low;
    memory(narrow);
    int value = vreg(low.name);
    B high = typeOf(in)[0] == 's' ? reg(lowering::op(*this, Opcode::Sra, value, imm(31))) : imm(0);
    setPair(pairRegs(in.operands[0].name), {reg(value), high});
}

// Bytes and halfwords (bool, char, short; and what Clang narrows `x >> 24` of an int to): the word that holds
// one is read and the element extracted, or merged in and the word written back. Memory is little-endian
// within a word, as on a GPU. Vector accesses (uchar4, short2) take their elements one after another.
void Selector::narrowMemory(const ptx::Instruction& in) {
    const auto& o = in.operands;
    bool load = in.parts[0] == "ld";
    int bytes = bitsOf(typeOf(in)) / 8;
    Operand at = load ? o.at(1) : o.at(0);
    if (at.kind != Kind::Address || at.name.empty()) fail("absolute addresses are not supported");
    Space space = spaceOf(in);
    bool byteBase = at.name[0] == '%' && wideOf({Kind::Reg, at.name, 0, false}).rep == Rep::Byte;
    if (byteBase && space == Space::Unknown) space = wideOf({Kind::Reg, at.name, 0, false}).space;
    std::vector<Operand> elements = vectorElements(load ? o.at(0) : o.at(1));
    for (size_t i = 0; i < elements.size(); ++i, at.value += bytes) {
        if (elements[i].kind != Kind::Reg && elements[i].kind != Kind::Imm) continue;  // `_` in a vector load
        NarrowAccess access{in, elements[i], at, space, bytes, load};
        byteBase ? computedNarrow(access) : fixedNarrow(access);
    }
}

// The byte's place in its word is known at compile time: the base is a word address (or a __shared__
// array) and the offset says which byte. Lanes that write one word in one instruction write the same byte,
// so reading and writing the whole word is exact.
void Selector::fixedNarrow(const NarrowAccess& n) {
    Operand at = n.at;
    int64_t byte = ((at.value % 4) + 4) % 4;
    if (byte + n.bytes > 4) fail("a halfword access that is not aligned to 2 bytes: CUDA requires it to be");
    at.value -= byte;
    Space space = n.space;
    auto [base, offset] = address(at, space);
    space = resolvedSpace(space);
    bool shared = space == Space::Shared;
    int word = temp(), bits = 8 * n.bytes, shift = int(byte * 8);
    emit(shared ? Opcode::LdShared : Opcode::LdGlobal, word, base, imm(offset));
    if (n.load) {
        int up = temp();
        emit(Opcode::Shl, up, word, imm(32 - bits - shift));
        return emit(typeOf(n.in)[0] == 's' ? Opcode::Sra : Opcode::Shr, vreg(n.data.name), up, imm(32 - bits));
    }
    uint32_t field = uint32_t(((uint64_t(1) << bits) - 1) << shift);
    int kept = temp(), part = temp(), placed = temp(), merged = temp();
    emit(Opcode::And, kept, word, imm(~field));
    emit(Opcode::Shl, part, reg32(n.data), imm(shift));
    emit(Opcode::And, placed, part, imm(field));
    emit(Opcode::Or, merged, kept, reg(placed));
    VInst v = located(shared ? Opcode::StShared : Opcode::StGlobal);
    v.rs1 = base, v.imm = offset, v.rs2 = merged;
    block().body.push_back(v);
}

// The base is a byte address computed at run time (a char array indexed by a variable): the word is the
// address / 4 and the shift comes from its low bits. Lanes of a warp may write different bytes of one word
// in one instruction, so a store is a routine that lets the lanes merge their bytes one after another, as
// the atomics do (the highest lane's byte remains where two lanes write the same one).
void Selector::computedNarrow(const NarrowAccess& n) {
    Space space = resolvedSpace(n.space);
    bool shared = space == Space::Shared;
    int address = vreg(n.at.name);
    if (n.at.value != 0) address = lowering::op(*this, Opcode::Add, address, imm(n.at.value));
    int word = lowering::op(*this, Opcode::Shr, address, imm(2));
    int within = lowering::op(*this, Opcode::And, address, imm(n.bytes == 1 ? 3 : 2));
    int shift = lowering::op(*this, Opcode::Shl, within, imm(3));
    int bits = 8 * n.bytes;
    uint32_t mask = uint32_t((uint64_t(1) << bits) - 1);
    if (n.load) {
        int loaded = temp();
        emit(shared ? Opcode::LdShared : Opcode::LdGlobal, loaded, word, imm(0));
        int value = lowering::op(*this, Opcode::Shr, loaded, reg(shift));
        if (typeOf(n.in)[0] != 's') return emit(Opcode::And, vreg(n.data.name), value, imm(mask));
        return emit(Opcode::Sra, vreg(n.data.name), lowering::op(*this, Opcode::Shl, value, imm(32 - bits)),
                    imm(32 - bits));
    }
    int field = lowering::op(*this, Opcode::Shl, lowering::mov(*this, imm(mask)), reg(shift));
    int kept = lowering::op(*this, Opcode::Not, field, {});
    int placed =
        lowering::op(*this, Opcode::Shl, lowering::op(*this, Opcode::And, reg32(n.data), imm(mask)), reg(shift));
    AtomicUpdate merge = [](Emitter& e, int updated, int old, const std::vector<int>& args) {
        e.emit(Opcode::Or, updated, op(e, Opcode::And, old, reg(args[1])), reg(args[2]));
    };
    serializedAtomic(shared ? "st.shared.narrow" : "st.global.narrow", shared, merge, temp(), {word, kept, placed});
}

std::vector<Operand> Selector::vectorElements(const Operand& v) {
    std::vector<Operand> out = ptx::vectorElements(v);
    for (const Operand& e : out)
        if (e.kind == Kind::Symbol && e.name != "_") fail("unexpected vector element '" + e.name + "'");
    return out;
}

// qgpu.save [%sp+w], %r and qgpu.restore %r, [%sp+w]: the machine registers that hold a PTX register (both
// words of a 64-bit pair), stored to or loaded from the call stack's frame; offsets in words.
void Selector::callStackSlot(const ptx::Instruction& in) {
    bool save = in.has("save");
    const Operand& slot = in.operands.at(save ? 0 : 1);
    const Operand& r = in.operands.at(save ? 1 : 0);
    int base = vreg(slot.name);
    std::vector<int> words = {vreg(r.name)};
    if (isPair(r)) words.push_back(vreg(r.name + kHighWordSuffix));
    for (size_t k = 0; k < words.size(); ++k) {
        uint32_t at = uint32_t(slot.value + int64_t(k));
        if (!save) {
            emit(Opcode::LdGlobal, words[k], base, imm(at));
            continue;
        }
        VInst v = located(Opcode::StGlobal);
        v.rs1 = base, v.imm = at, v.rs2 = words[k];
        block().body.push_back(v);
    }
}

// trap.callstack: every lane that reaches it warns that the call stack is full (the thread then exits).
void Selector::callStackFull() {
    int one = temp();
    emit(Opcode::Mov, one, kZeroReg, imm(1));
    emit(Opcode::Warn, kZeroReg, kZeroReg, imm(int64_t(MachineWarning::CallStackFull)), one);
}

}  // namespace qgpu::lowering
