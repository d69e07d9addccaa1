#include "CallStack.h"

namespace qgpu::lowering {
namespace {

using ptx::Instruction;
using ptx::Operand;
using Kind = Operand::Kind;

const std::string kPointer = "%rdqsp", kDepth = "%rqdepth", kSite = "%rqsite", kWord = "%rqword", kNext = "%rqnext",
                  kFull = "%pqfull", kMatch = "%pqmatch", kTrampoline = "$L__qgpu_trampoline";

Operand reg(const std::string& name) { return {Kind::Reg, name, 0, false}; }
Operand imm(int64_t v) { return {Kind::Imm, "", v, false}; }
Operand slot(int word) { return {Kind::Address, kPointer, word, false}; }  // in words: qgpu.save/restore
Operand label(const std::string& name) { return {Kind::Label, name, 0, false}; }

void emit(ptx::Function& out, const Instruction& at, const std::string& opcode, std::vector<Operand> operands,
          const std::string& guard = "", bool negated = false) {
    Instruction in = at;
    in.opcode = opcode;
    in.parts.clear();
    for (size_t start = 0;;) {
        size_t dot = opcode.find('.', start);
        in.parts.push_back(opcode.substr(start, dot - start));
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    in.guard = guard;
    in.guardNegated = negated;
    in.operands = std::move(operands);
    out.body.push_back(std::move(in));
}

bool is64Bit(const std::string& name) { return name.rfind("%rd", 0) == 0 || name.rfind("%SP", 0) == 0; }

}  // namespace

std::string returnSiteLabel(int site) { return "$L__qgpu_return_" + std::to_string(site); }

CallFrame callFrame(const std::set<std::string>& live, const std::vector<Operand>& depotWords) {
    CallFrame f;
    for (const std::string& r : live) {
        f.registers.push_back({r, f.words});
        f.words += is64Bit(r) ? 2 : 1;
    }
    for (const Operand& w : depotWords) f.depotWords.push_back({w, f.words++});
    f.words++;  // the site's number
    return f;
}

void startCallStack(const Instruction& at, ptx::Function& out) {
    emit(out, at, "mov.u64", {reg(kPointer), {Kind::Symbol, kCallStackArray, 0, false}});
    emit(out, at, "mov.u32", {reg(kDepth), imm(0)});
}

void pushFrame(const Instruction& at, const CallFrame& frame, int site, int depth, ptx::Function& out) {
    std::string room = "$L__qgpu_push_" + std::to_string(site);
    emit(out, at, "setp.ge.u32", {reg(kFull), reg(kDepth), imm(depth)});
    emit(out, at, "bra", {label(room)}, kFull, true);
    emit(out, at, "trap.callstack", {});
    out.labels[room] = out.body.size();
    emit(out, at, "add.s32", {reg(kDepth), reg(kDepth), imm(1)});
    for (const auto& [r, word] : frame.registers) emit(out, at, "qgpu.save", {slot(word), reg(r)});
    for (const auto& [w, word] : frame.depotWords) {
        emit(out, at, "ld.local.u32", {reg(kWord), w});
        emit(out, at, "qgpu.save", {slot(word), reg(kWord)});
    }
    emit(out, at, "mov.u32", {reg(kSite), imm(site)});
    emit(out, at, "qgpu.save", {slot(frame.words - 1), reg(kSite)});
    emit(out, at, "add.s64", {reg(kPointer), reg(kPointer), imm(4 * frame.words)});
}

void popFrame(const Instruction& at, const CallFrame& frame, int site, ptx::Function& out) {
    out.labels[returnSiteLabel(site)] = out.body.size();
    emit(out, at, "sub.s64", {reg(kPointer), reg(kPointer), imm(4 * frame.words)});
    emit(out, at, "sub.s32", {reg(kDepth), reg(kDepth), imm(1)});
    for (const auto& [r, word] : frame.registers) emit(out, at, "qgpu.restore", {reg(r), slot(word)});
    for (const auto& [w, word] : frame.depotWords) {
        emit(out, at, "qgpu.restore", {reg(kWord), slot(word)});
        emit(out, at, "st.local.u32", {w, reg(kWord)});
    }
}

void enterTrampoline(const Instruction& at, int target, ptx::Function& out) {
    emit(out, at, "mov.u32", {reg(kNext), imm(target)});
    emit(out, at, "bra", {label(kTrampoline)});
}

void returnPath(const Instruction& at, ptx::Function& out) {
    out.labels[kReturnLabel] = out.body.size();
    emit(out, at, "qgpu.restore", {reg(kNext), slot(-1)});
    emit(out, at, "bra", {label(kTrampoline)});
}

void trampoline(const Instruction& at, const std::vector<std::pair<int, std::string>>& targets, ptx::Function& out) {
    out.labels[kTrampoline] = out.body.size();
    for (size_t k = 0; k + 1 < targets.size(); ++k) {
        emit(out, at, "setp.eq.s32", {reg(kMatch), reg(kNext), imm(targets[k].first)});
        emit(out, at, "bra", {label(targets[k].second)}, kMatch);
    }
    emit(out, at, "bra", {label(targets.back().second)});
}

}  // namespace qgpu::lowering
