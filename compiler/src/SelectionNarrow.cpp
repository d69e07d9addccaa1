// 8- and 16-bit values, and the PTX operations that become instruction sequences (Sequences.h).
#include "Selector.h"

#include <cstdlib>

namespace qgpu::lowering {

// Clang narrows arithmetic it can prove small (threadIdx.x / 3 becomes 16-bit). Such a value lives in
// a 32-bit register whose bits above its width are undefined: operations whose low bits depend only
// on the operands' low bits run as they are; the others (right shifts, division, compares, min/max,
// high products) see the operands zero- or sign-extended first.
int Selector::bitsOf(const std::string& type) {
    if (type.size() < 2 || (type[0] != 's' && type[0] != 'u' && type[0] != 'b')) return 32;
    int bits = std::atoi(type.c_str() + 1);
    return bits > 0 ? bits : 32;
}

int Selector::extend(int r, int bits, bool isSigned) {
    int t = temp();
    if (isSigned) {
        int up = temp();
        emit(Opcode::Shl, up, r, imm(32 - bits));
        emit(Opcode::Sra, t, up, imm(32 - bits));
    } else {
        emit(Opcode::And, t, r, imm((int64_t(1) << bits) - 1));
    }
    return t;
}

// A name for a 32-bit register the rewritten instruction reads.
Operand Selector::extended(const Operand& o, int bits, bool isSigned) {
    if (o.kind != Kind::Reg) return o;
    std::string name = "%ext" + std::to_string(m_nextVreg);
    m_vregs[name] = extend(reg32(o), bits, isSigned);
    return {Kind::Reg, name, 0, false};
}

void Selector::narrowConvert(const ptx::Instruction& in) {
    const auto& o = in.operands;
    int to = bitsOf(in.parts[1]), from = bitsOf(in.parts[2]);
    int src = isWideReg(o[1].name) ? asByte(o[1]) : reg32(o[1]);
    if (to <= from || from >= 32) return emit(Opcode::Mov, vreg(o[0].name), kZeroReg, reg(src));  // truncating
    int value = extend(src, from, in.parts[2][0] == 's');
    if (to == 64 && wideOf(o[0]).rep == Rep::Word) return emit(Opcode::Sra, vreg(o[0].name), value, imm(2));
    emit(Opcode::Mov, vreg(o[0].name), kZeroReg, reg(value));
}

void Selector::narrowOperation(const ptx::Instruction& in) {
    const std::string& op = in.parts[0];
    std::string type = typeOf(in);
    int bits = bitsOf(type);
    bool isSigned = type[0] == 's';
    ptx::Instruction w = in;
    w.parts.back() = std::string(1, type[0]) + "32";
    w.opcode = in.opcode.substr(0, in.opcode.rfind('.')) + "." + w.parts.back();
    bool needsHighBits = op == "shr" || op == "abs" || op == "div" || op == "rem" || op == "setp" || op == "min" ||
                         op == "max" || (op == "mul" && !in.has("lo")) || op == "bfe";
    if (needsHighBits)
        for (size_t i = 1; i < w.operands.size(); ++i)
            if (op != "shr" || i == 1) w.operands[i] = extended(w.operands[i], bits, isSigned);
    if (op == "mul" && (in.has("wide") || in.has("hi"))) {  // exact in 32 bits from extended operands
        bool hi = in.has("hi");
        w.parts = {"mul", "lo", w.parts.back()};
        if (!hi) return statement(w);
        std::string full = "%ext" + std::to_string(m_nextVreg);
        Operand dest = w.operands[0];
        w.operands[0] = {Kind::Reg, full, 0, false};
        statement(w);
        return emit(isSigned ? Opcode::Sra : Opcode::Shr, vreg(dest.name), vreg(full), imm(bits));
    }
    statement(w);
}

// Operations the machine has no opcode for, as instruction sequences (Sequences.h).
bool Selector::expandSequence(const ptx::Instruction& in) {
    const std::string& op = in.parts[0];
    const auto& o = in.operands;
    bool isSigned = typeOf(in)[0] == 's';
    auto operands = [&](size_t n) {
        if (o.size() != n) fail("expected " + std::to_string(n) + " operands");
    };
    if (op == "mul" && in.has("hi")) {
        operands(3);
        int a = reg32(o[1]);
        B b = bOf(o[2]);
        mulHigh(*this, vreg(o[0].name), a, b, isSigned);
    } else if (op == "div" || op == "rem") {
        operands(3);
        int a = reg32(o[1]);
        B b = bOf(o[2]);
        divide(*this, vreg(o[0].name), a, b, isSigned, op == "rem");
    } else if (op == "popc" || op == "clz" || op == "brev") {
        operands(2);
        int a = reg32(o[1]), rd = vreg(o[0].name);
        if (op == "popc") populationCount(*this, rd, a);
        if (op == "clz") leadingZeros(*this, rd, a);
        if (op == "brev") bitReverse(*this, rd, a);
    } else if (op == "bfe") {
        operands(4);
        int a = reg32(o[1]);
        B pos = bOf(o[2]), len = bOf(o[3]);
        bitFieldExtract(*this, vreg(o[0].name), a, pos, len, isSigned);
    } else if (op == "bfi") {
        operands(5);
        int a = reg32(o[1]), base = reg32(o[2]);
        B pos = bOf(o[3]), len = bOf(o[4]);
        bitFieldInsert(*this, vreg(o[0].name), a, base, pos, len);
    } else if (op == "shf") {
        operands(4);
        int a = reg32(o[1]), b = reg32(o[2]);
        B amount = bOf(o[3]);
        funnelShift(*this, vreg(o[0].name), a, b, amount, in.has("l"), in.has("clamp"));
    } else if (op == "prmt") {
        operands(4);
        if (in.parts.size() != 2) fail("prmt with a mode (." + in.parts[1] + ") is not supported");
        std::optional<int64_t> selector = constantOf(o[3]);
        if (!selector)
            fail("__byte_perm with a selector computed at run time is not supported: use a constant selector");
        int a = reg32(o[1]), b = reg32(o[2]);
        bytePermute(*this, vreg(o[0].name), a, b, uint32_t(*selector));
    } else {
        return false;
    }
    return true;
}

}  // namespace qgpu::lowering
