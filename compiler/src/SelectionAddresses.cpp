// 64-bit PTX registers on a 32-bit machine: which hold word addresses (bytes / 4) and which hold data, and
// the arithmetic on both.
#include "Selector.h"

namespace qgpu::lowering {

// The 64-bit registers that addresses are computed in: the base of every memory access, and what adds,
// moves and shifts into them. Only these can hold word addresses; any other 64-bit value is data.
void Selector::findAddressRegisters() {
    auto narrow = [](const ptx::Instruction& in) {
        return (in.parts[0] == "ld" || in.parts[0] == "st") && bitsOf(typeOf(in)) < 32;
    };
    for (const auto& in : m_fn.body) {
        const std::string& op = in.parts[0];
        if ((op == "ld" && !in.has("param")) || op == "st" || op == "atom" || op == "red")
            for (const auto& o : in.operands)
                if (o.kind == Kind::Address && isWideReg(o.name)) {
                    m_addressRegs.insert(o.name);
                    if (narrow(in)) m_narrowAddressRegs.insert(o.name);
                }
    }
    addSources(m_addressRegs);
    addSources(m_narrowAddressRegs);
}

void Selector::addSources(std::set<std::string>& regs) const {
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& in : m_fn.body) {
            const std::string& op = in.parts[0];
            bool carries = op == "add" || op == "sub" || op == "selp" || op == "mov" || op == "cvta" || op == "shl" ||
                           op == "or" || op == "mul" || op == "cvt";
            bool compared = op == "setp" && in.operands.size() > 2 &&  // a pointer against an end pointer
                            (regs.count(in.operands[1].name) || regs.count(in.operands[2].name));
            if (!compared && (!carries || in.operands.empty() || !regs.count(in.operands[0].name))) continue;
            for (size_t i = 1; i < in.operands.size(); ++i)
                if (in.operands[i].kind == Kind::Reg && isWideReg(in.operands[i].name))
                    changed |= regs.insert(in.operands[i].name).second;
        }
    }
}

// Fixpoint over the function: which 64-bit registers hold word addresses, and into which memory. A register
// that would hold a word address but takes in a byte offset (a pointer plus a char index) and leads to a
// byte or halfword access holds a byte address instead; registers computed from it then do too, so the
// fixpoint runs again until none changes. Such a register that leads to 32-bit accesses only keeps its word
// address (the offset's low bits are 0 in an aligned access, as CUDA requires).
void Selector::inferWideRegisters() {
    findAddressRegisters();
    do {
        m_wide.clear();
        for (bool changed = true; changed;) {
            changed = false;
            for (const auto& in : m_fn.body) {
                if (in.operands.empty() || in.operands[0].kind != Kind::Reg || !isWideReg(in.operands[0].name))
                    continue;
                const std::string& name = in.operands[0].name;
                Wide w = wideDef(in);
                Wide& cur = m_wide[name];
                bool word = (cur.rep == Rep::Word || w.rep == Rep::Word) && !m_byteAddresses.count(name) &&
                            !m_pairs.count(name);
                Wide next{word ? Rep::Word : Rep::Byte, merge(cur.space, w.space)};
                if (next.rep != cur.rep || next.space != cur.space) cur = next, changed = true;
            }
        }
    } while (findByteAddresses());
}

bool Selector::isByteAddress(const Operand& o) const {
    return o.kind == Kind::Reg && isWideReg(o.name) && m_byteAddresses.count(o.name);
}

bool Selector::findByteAddresses() {
    auto byteOperand = [&](const Operand& o) {
        return (o.kind == Kind::Reg && isWideReg(o.name) && wideOf(o).rep == Rep::Byte) ||
               (o.kind == Kind::Imm && o.value % 4 != 0);
    };
    bool found = false;
    for (const auto& in : m_fn.body) {
        const auto& o = in.operands;
        if (o.size() < 3 || o[0].kind != Kind::Reg || !isWideReg(o[0].name) || wideOf(o[0]).rep != Rep::Word) continue;
        const std::string& op = in.parts[0];
        if ((op == "add" || op == "sub" || op == "selp" || op == "or") && (byteOperand(o[1]) || byteOperand(o[2])) &&
            m_narrowAddressRegs.count(o[0].name))
            found |= m_byteAddresses.insert(o[0].name).second;
    }
    return found;
}

Wide Selector::wideDef(const ptx::Instruction& in) const {
    const std::string& op = in.parts[0];
    auto src = [&](size_t i) { return i < in.operands.size() ? wideOf(in.operands[i]) : Wide{}; };
    auto immAt = [&](size_t i) -> std::optional<int64_t> {
        if (i < in.operands.size() && in.operands[i].kind == Kind::Imm) return in.operands[i].value;
        return std::nullopt;
    };
    if (op == "ld" && in.has("param"))  // a pointer; a scalar is a value
        return m_pointers.count(in.operands[0].name) ? Wide{Rep::Word, Space::Global} : Wide{};
    if (op == "mov" && in.operands.size() > 1 && in.operands[1].kind == Kind::Symbol)
        return {Rep::Word, isGlobalSymbol(in.operands[1].name)  ? Space::Global
                           : isLocalSymbol(in.operands[1].name) ? Space::Local
                                                                : Space::Shared};
    if (op == "mov") return src(1);
    if (op == "cvta")
        return {src(1).rep, in.has("shared") || in.has("global") || in.has("const") || in.has("local") ? spaceOf(in)
                                                                                                       : src(1).space};
    bool address = m_addressRegs.count(in.operands[0].name) > 0;
    if (op == "mul" && in.has("wide"))
        return {address && immAt(2) && *immAt(2) % 4 == 0 ? Rep::Word : Rep::Byte, Space::Unknown};
    if (op == "shl") {
        Wide a = src(1);
        bool word = a.rep == Rep::Word || (address && immAt(2) && *immAt(2) >= 2);
        return {word ? Rep::Word : Rep::Byte, a.space};
    }
    if (op == "add" || op == "sub" || op == "selp" || op == "or") {
        Wide a = src(1), b = src(2);
        return {a.rep == Rep::Word || b.rep == Rep::Word ? Rep::Word : Rep::Byte, merge(a.space, b.space)};
    }
    return {};
}

int Selector::asWord(const Operand& o) {
    if (o.kind == Kind::Reg && isWideReg(o.name) && wideOf(o).rep == Rep::Word) return vreg(o.name);
    int src = o.kind == Kind::Reg ? vreg(o.name) : reg32(o), t = temp();
    emit(Opcode::Sra, t, src, imm(2));
    return t;
}

int Selector::asByte(const Operand& o) {
    if (wideOf(o).rep == Rep::Byte) return vreg(o.name);
    int t = temp();
    emit(Opcode::Shl, t, vreg(o.name), imm(2));
    return t;
}

// Address arithmetic on 64-bit registers, in words or bytes (see Rep).
// A 64-bit register converted back to a 32-bit value: its low word.
void Selector::lowWord(const ptx::Instruction& in) {
    const auto& o = in.operands;
    std::string from = in.parts.size() > 2 ? in.parts[2] : "";
    if (from.size() > 1 && from.substr(1) == "64")
        return emit(Opcode::Mov, vreg(o[0].name), kZeroReg, reg(asByte(o[1])));
    if (from == "u32" || from == "s32" || from == "b32")
        return emit(Opcode::Mov, vreg(o[0].name), kZeroReg, reg(reg32(o[1])));
    fail("conversion " + in.opcode + " is not supported: use int");
}

// The address of a memory symbol in words (or bytes, for a byte-address register): a local array's place in
// the thread's frame, a global variable's (the linker places it) or a __shared__ array's.
void Selector::symbolAddress(int rd, const std::string& symbol, Rep dst) {
    if (isLocalSymbol(symbol)) {
        frameBase(rd);
        if (int at = m_out.localOffsets.at(symbol)) emit(Opcode::Add, rd, rd, imm(at));
    } else if (isGlobalSymbol(symbol)) {
        emitSymbol(rd, globalName(symbol));
    } else {
        return emit(Opcode::Mov, rd, kZeroReg, imm(sharedBase(symbol) * (dst == Rep::Word ? 1 : 4)));
    }
    if (dst == Rep::Byte) emit(Opcode::Shl, rd, rd, imm(2));
}

void Selector::wide(const ptx::Instruction& in) {
    const std::string& op = in.parts[0];
    const auto& o = in.operands;
    if (op == "cvt" && !isWideReg(o[0].name)) return lowWord(in);
    int rd = vreg(o[0].name);
    Rep dst = wideOf(o[0]).rep;
    auto operand = [&](const Operand& x) -> B {
        if (x.kind == Kind::Imm) {
            if (dst == Rep::Word && x.value % 4)
                fail("a byte offset that is not a whole word: the machine addresses 32-bit words");
            return imm(dst == Rep::Word ? x.value / 4 : x.value);
        }
        return reg(dst == Rep::Word ? asWord(x) : reg32(x));
    };
    if (op == "cvt") {  // a byte value; a register that also holds word addresses needs words
        int v = reg32(o[1]);
        return emit(dst == Rep::Word ? Opcode::Sra : Opcode::Mov, rd, dst == Rep::Word ? v : kZeroReg,
                    dst == Rep::Word ? imm(2) : reg(v));
    }
    if (op == "cvta" || (op == "mov" && o[1].kind != Kind::Symbol))
        return emit(Opcode::Mov, rd, kZeroReg, operand(o[1]));
    if (op == "mov") return symbolAddress(rd, o[1].name, dst);
    if (op == "mul" && in.has("wide")) {
        int a = reg32(o[1]);
        if (o[2].kind == Kind::Imm && (dst == Rep::Byte || o[2].value % 4 == 0))
            return emit(Opcode::Mul, rd, a, imm(dst == Rep::Word ? o[2].value / 4 : o[2].value));
        emit(Opcode::Mul, rd, a, bOf(o[2]));
        if (dst == Rep::Word) emit(Opcode::Sra, rd, rd, imm(2));
        return;
    }
    if (op == "shl" && o[2].kind == Kind::Imm) {
        Rep from = wideOf(o[1]).rep;
        int64_t k = o[2].value + (from == Rep::Word ? 2 : 0) - (dst == Rep::Word ? 2 : 0);
        if (k < 0) fail("an address that is not a whole number of 32-bit words: the machine addresses words");
        return emit(Opcode::Shl, rd, vreg(o[1].name), imm(k));
    }
    bool alignedOr = op == "or" && m_pointers.count(o[0].name) && o[2].kind == Kind::Imm;  // Clang's `or` of an
    if (alignedOr || ((op == "add" || op == "sub") && in.parts.size() == 2)) {  // offset into an aligned pointer
        int a = dst == Rep::Word ? asWord(o[1]) : reg32(o[1]);
        B b = operand(o[2]);
        return emit(op == "sub" ? Opcode::Sub : Opcode::Add, rd, a, b);
    }
    static const std::map<std::string, Opcode> bitwise = {
        {"and", Opcode::And}, {"or", Opcode::Or}, {"xor", Opcode::Xor}, {"mul", Opcode::Mul}, {"shl", Opcode::Shl}};
    auto bit = bitwise.find(op);
    if (bit != bitwise.end() && dst == Rep::Byte && (op != "mul" || in.has("lo")) &&
        wideOf(o[1]).rep == Rep::Byte) {  // the low word of a value
        int a = reg32(o[1]);
        return emit(bit->second, rd, a, bOf(o[2]));
    }
    if (op == "not" && dst == Rep::Byte) return emit(Opcode::Not, rd, reg32(o[1]));
    if (op == "selp") {
        int a = dst == Rep::Word ? asWord(o[1]) : reg32(o[1]), c = reg32(o[3]);
        B b = operand(o[2]);
        return emit(Opcode::Sel, rd, a, b, c);
    }
    fail("64-bit arithmetic '" + in.opcode + "' is not supported: the machine computes in 32 bits (use int)");
}

}  // namespace qgpu::lowering
