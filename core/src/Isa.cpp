#include "qgpu/core/Isa.h"

#include <array>
#include <cassert>

namespace qgpu {
namespace {

using F = OperandForm;
constexpr std::array<OpcodeInfo, size_t(Opcode::Count_)> kOpcodes{{
    {Opcode::Add, "add", F::RdAB, false},
    {Opcode::Sub, "sub", F::RdAB, false},
    {Opcode::Mul, "mul", F::RdAB, false},
    {Opcode::Shl, "shl", F::RdAB, false},
    {Opcode::Shr, "shr", F::RdAB, false},
    {Opcode::Sra, "sra", F::RdAB, false},
    {Opcode::And, "and", F::RdAB, false},
    {Opcode::Or, "or", F::RdAB, false},
    {Opcode::Xor, "xor", F::RdAB, false},
    {Opcode::Not, "not", F::RdA, false},
    {Opcode::Min, "min", F::RdAB, false},
    {Opcode::Max, "max", F::RdAB, false},
    {Opcode::MinU, "minu", F::RdAB, false},
    {Opcode::MaxU, "maxu", F::RdAB, false},
    {Opcode::Mov, "mov", F::RdB, false},
    {Opcode::SetEq, "seteq", F::RdAB, false},
    {Opcode::SetNe, "setne", F::RdAB, false},
    {Opcode::SetLt, "setlt", F::RdAB, false},
    {Opcode::SetLe, "setle", F::RdAB, false},
    {Opcode::SetGt, "setgt", F::RdAB, false},
    {Opcode::SetGe, "setge", F::RdAB, false},
    {Opcode::SetLtU, "setltu", F::RdAB, false},
    {Opcode::SetLeU, "setleu", F::RdAB, false},
    {Opcode::SetGtU, "setgtu", F::RdAB, false},
    {Opcode::SetGeU, "setgeu", F::RdAB, false},
    {Opcode::Sel, "sel", F::RdABC, false},
    {Opcode::Sreg, "sreg", F::RdSreg, false},
    {Opcode::LdGlobal, "ld.global", F::Load, false},
    {Opcode::StGlobal, "st.global", F::Store, false},
    {Opcode::LdShared, "ld.shared", F::Load, false},
    {Opcode::StShared, "st.shared", F::Store, false},
    {Opcode::AtomGlobal, "atom.global", F::Atomic, false},
    {Opcode::AtomShared, "atom.shared", F::Atomic, false},
    {Opcode::ShflIdx, "shfl.idx", F::Shuffle, false},
    {Opcode::ShflUp, "shfl.up", F::Shuffle, false},
    {Opcode::ShflDown, "shfl.down", F::Shuffle, false},
    {Opcode::ShflBfly, "shfl.bfly", F::Shuffle, false},
    {Opcode::Jmp, "jmp", F::Target, true},
    {Opcode::Br, "br", F::CondTargets, true},
    {Opcode::Bar, "bar", F::Target, true},
    {Opcode::Exit, "exit", F::None, true},
    {Opcode::Warn, "warn", F::Warning, false},
}};

constexpr std::array<std::string_view, size_t(SpecialReg::Count_)> kSregNames{
    "tid.x",   "tid.y",   "tid.z",    "ntid.x",   "ntid.y",   "ntid.z", "ctaid.x",
    "ctaid.y", "ctaid.z", "nctaid.x", "nctaid.y", "nctaid.z", "laneid", "warpid"};

}  // namespace

const OpcodeInfo& opcodeInfo(Opcode op) {
    assert(size_t(op) < kOpcodes.size() && kOpcodes[size_t(op)].op == op);
    return kOpcodes[size_t(op)];
}

std::optional<Opcode> opcodeFromMnemonic(std::string_view mnemonic) {
    for (const auto& info : kOpcodes)
        if (info.mnemonic == mnemonic) return info.op;
    return std::nullopt;
}

std::string_view machineWarningName(MachineWarning w) {
    switch (w) {
        case MachineWarning::DivisionByZero: return "divzero";
        case MachineWarning::DivisionOverflow: return "divoverflow";
        case MachineWarning::CallStackFull: return "stackfull";
    }
    return "";
}

std::optional<MachineWarning> machineWarningFromName(std::string_view name) {
    for (MachineWarning w :
         {MachineWarning::DivisionByZero, MachineWarning::DivisionOverflow, MachineWarning::CallStackFull})
        if (machineWarningName(w) == name) return w;
    return std::nullopt;
}

std::string machineWarningText(uint32_t code) {
    switch (MachineWarning(code)) {
        case MachineWarning::DivisionByZero:
            return "integer division by zero: the quotient and the remainder are all ones (0xffffffff)";
        case MachineWarning::DivisionOverflow:
            return "INT_MIN / -1 overflows: the quotient is INT_MIN and the remainder 0";
        case MachineWarning::CallStackFull:
            return "the call stack is full: a recursive call deeper than the program's call depth "
                   "(--call-depth); the thread stops here, so its results are incomplete";
    }
    return "warning " + std::to_string(code);
}

std::string_view specialRegName(SpecialReg r) { return kSregNames[size_t(r)]; }

std::optional<SpecialReg> specialRegFromName(std::string_view name) {
    for (size_t i = 0; i < kSregNames.size(); ++i)
        if (kSregNames[i] == name) return SpecialReg(i);
    return std::nullopt;
}

bool Instruction::operator==(const Instruction& o) const {
    return op == o.op && rd == o.rd && rs1 == o.rs1 && rs2 == o.rs2 && rc == o.rc && useImm == o.useImm &&
           aux == o.aux && imm == o.imm && immSymbol == o.immSymbol;
}

int Program::blockIndex(std::string_view label) const {
    for (size_t i = 0; i < blocks.size(); ++i)
        if (blocks[i].label == label) return int(i);
    return -1;
}

}  // namespace qgpu
