#include <map>

#include "Passes.h"

namespace qgpu::lowering {
namespace {

struct Constant {
    uint32_t value = 0;
    std::string symbol;  // link-time part (an argument's address or value), may be empty
};

bool isCommutative(Opcode op) {
    switch (op) {
        case Opcode::Add:
        case Opcode::Mul:
        case Opcode::And:
        case Opcode::Or:
        case Opcode::Xor:
        case Opcode::Min:
        case Opcode::Max:
        case Opcode::MinU:
        case Opcode::MaxU:
        case Opcode::SetEq:
        case Opcode::SetNe: return true;
        default: return false;
    }
}

bool takesImmediateB(Opcode op) {
    OperandForm f = opcodeInfo(op).form;
    return f == OperandForm::RdAB || f == OperandForm::RdB || f == OperandForm::RdABC || f == OperandForm::Shuffle;
}

bool isMemory(Opcode op) {
    OperandForm f = opcodeInfo(op).form;
    return f == OperandForm::Load || f == OperandForm::Store || f == OperandForm::Atomic;
}

// Registers written exactly once, by `mov r, imm`: their value is the same wherever they are read.
std::map<int, Constant> constants(const VProgram& p) {
    std::map<int, int> defs;
    std::map<int, Constant> out;
    for (const auto& b : p.blocks)
        for (const auto& v : b.body)
            if (v.rd != kZeroReg) {
                defs[v.rd]++;
                if (v.op == Opcode::Mov && v.useImm) out[v.rd] = {v.imm, v.immSymbol};
            }
    for (auto it = out.begin(); it != out.end();) it = defs[it->first] == 1 ? std::next(it) : out.erase(it);
    return out;
}

bool setB(VInst& v, const Constant& c) {
    if (!c.symbol.empty() && !v.immSymbol.empty()) return false;
    v.useImm = true;
    v.rs2 = kZeroReg;
    v.imm = c.value;
    if (!c.symbol.empty()) v.immSymbol = c.symbol;
    return true;
}

bool foldInstruction(VInst& v, const std::map<int, Constant>& k) {
    auto constant = [&](int r) { return r == kZeroReg ? nullptr : k.count(r) ? &k.at(r) : nullptr; };
    if (isMemory(v.op)) {  // [const + imm] -> [r0 + imm']
        const Constant* c = constant(v.rs1);
        if (!c || (!c->symbol.empty() && !v.immSymbol.empty())) return false;
        v.rs1 = kZeroReg;
        v.imm += c->value;
        if (!c->symbol.empty()) v.immSymbol = c->symbol;
        return true;
    }
    if (!takesImmediateB(v.op)) return false;
    if (!v.useImm && constant(v.rs2)) return setB(v, *constant(v.rs2));
    if (isCommutative(v.op) && !v.useImm && constant(v.rs1)) {
        std::swap(v.rs1, v.rs2);
        return setB(v, *constant(v.rs2));
    }
    // x * 1, x + 0, x - 0, x | 0, x ^ 0, shifts by 0: a copy of x
    bool identity =
        v.useImm && v.immSymbol.empty() &&
        ((v.op == Opcode::Mul && v.imm == 1) ||
         (v.imm == 0 && (v.op == Opcode::Add || v.op == Opcode::Sub || v.op == Opcode::Or || v.op == Opcode::Xor ||
                         v.op == Opcode::Shl || v.op == Opcode::Shr || v.op == Opcode::Sra)));
    if (identity) {
        v.op = Opcode::Mov;
        v.useImm = false;
        v.rs2 = v.rs1;
        v.rs1 = kZeroReg;
        return true;
    }
    return false;
}

// `t = x + c; ld [t]` in one block, x unchanged in between: `ld [x + c]`.
bool foldAddressAdds(VBlock& b) {
    bool changed = false;
    for (size_t i = 0; i < b.body.size(); ++i) {
        const VInst& add = b.body[i];
        if (add.op != Opcode::Add || !add.useImm || add.rd == kZeroReg || add.rd == add.rs1) continue;
        for (size_t j = i + 1; j < b.body.size(); ++j) {
            VInst& m = b.body[j];
            if (isMemory(m.op) && m.rs1 == add.rd && (add.immSymbol.empty() || m.immSymbol.empty())) {
                m.rs1 = add.rs1;
                m.imm += add.imm;
                if (!add.immSymbol.empty()) m.immSymbol = add.immSymbol;
                changed = true;
            }
            if (m.rd == add.rd || m.rd == add.rs1) break;
        }
    }
    return changed;
}

}  // namespace

void foldConstants(VProgram& p) {
    for (bool changed = true; changed;) {
        changed = false;
        std::map<int, Constant> k = constants(p);
        for (auto& b : p.blocks) {
            for (auto& v : b.body) changed = foldInstruction(v, k) || changed;
            changed = foldAddressAdds(b) || changed;
        }
    }
}

}  // namespace qgpu::lowering
