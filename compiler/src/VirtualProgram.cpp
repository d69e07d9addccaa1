#include "VirtualProgram.h"

namespace qgpu::lowering {

std::vector<int> VInst::uses() const {
    std::vector<int> out;
    auto add = [&](int r) {
        if (r != kZeroReg) out.push_back(r);
    };
    switch (opcodeInfo(op).form) {
        case OperandForm::RdAB:
        case OperandForm::Shuffle:
            add(rs1);
            if (!useImm) add(rs2);
            break;
        case OperandForm::RdB:
            if (!useImm) add(rs2);
            break;
        case OperandForm::RdA:
        case OperandForm::Load: add(rs1); break;
        case OperandForm::RdABC:
            add(rs1);
            if (!useImm) add(rs2);
            add(rc);
            break;
        case OperandForm::Store:
        case OperandForm::Atomic:
            add(rs1);
            add(rs2);
            break;
        case OperandForm::CondTargets:
        case OperandForm::Warning: add(rc); break;
        case OperandForm::RdSreg:
        case OperandForm::Target:
        case OperandForm::None: break;
    }
    return out;
}

bool VInst::hasSideEffects() const {
    switch (op) {
        case Opcode::StGlobal:
        case Opcode::StShared:
        case Opcode::AtomGlobal:
        case Opcode::AtomShared:
        case Opcode::Warn: return true;
        default: return opcodeInfo(op).terminator;
    }
}

std::vector<int> VBlock::successors() const {
    switch (term.op) {
        case Opcode::Jmp:
        case Opcode::Bar: return {target};
        case Opcode::Br: return target == elseTarget ? std::vector<int>{target} : std::vector<int>{target, elseTarget};
        default: return {};
    }
}

}  // namespace qgpu::lowering
