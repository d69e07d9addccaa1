// Calls of device functions that Clang left as calls (__noinline__, and at -O0 every function that is not
// __forceinline__), inlined into the kernel before selection: each call site gets the callee's body with
// its registers and labels renamed, its parameters read from what the call site stored, and its return
// value moved to where the call site loads it. Recursive functions are placed on the call stack instead
// (RecursiveCalls.cpp).
#include "Inliner.h"
#include "PtxParsing.h"

#include <llvm/Demangle/Demangle.h>

#include <cctype>

#include "qgpu/core/Diagnostic.h"

namespace qgpu::lowering {
namespace inlining {

using Kind = Operand::Kind;
using ptx::vectorElements;

namespace {

// The width of a register by the prefix of its name: %rd 64 bits (and the stack pointers), %rs 16, %p a
// predicate, the others (%r, %f) 32.
int registerBits(const std::string& name) {
    if (name.rfind("%rd", 0) == 0 || name.rfind("%SP", 0) == 0) return 64;
    if (name.rfind("%rs", 0) == 0) return 16;
    if (name.rfind("%p", 0) == 0) return 1;
    return 32;
}

// The mov type for a value of a param access's type: 8-bit values move as 16 bits (registers have no
// narrower kind).
std::string moveType(const std::string& type) {
    if (type.size() > 1 && type.substr(1) == "8") return "b16";
    return type;
}

}  // namespace

Instruction mov(const Instruction& at, const std::string& type, Operand dest, Operand value) {
    Instruction m = at;
    m.guard.clear();
    m.parts = {"mov", moveType(type)};
    m.opcode = "mov." + m.parts[1];
    m.operands = {std::move(dest), std::move(value)};
    return m;
}

std::vector<std::string> names(const std::string& list) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : list) {
        if (c == '(' || c == ')' || c == ',' || std::isspace(static_cast<unsigned char>(c))) {
            if (!cur.empty()) out.push_back(cur), cur.clear();
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

std::string typeOf(const Instruction& in) { return in.parts.size() > 1 ? in.parts.back() : ""; }

std::string key(const std::string& name, int64_t offset) { return name + "+" + std::to_string(offset); }

int elementBytes(const std::string& type) {
    std::string digits = type.substr(1);
    return std::isdigit(static_cast<unsigned char>(digits[0])) ? std::stoi(digits) / 8 : 4;
}

InlinedKernel Inliner::run(const ptx::Function& kernel) {
    m_out = kernel;
    m_out.body.clear();
    m_out.labels.clear();
    if (!kernel.body.empty() && reachesRecursion(m_module, kernel, m_recursive))
        startCallStack(kernel.body.front(), m_out);
    Body body{kernel, "", {}, ""};
    emitBody(body);
    emitSubroutines();
    int64_t stackBytes = m_subroutines.empty() ? 0 : int64_t(4) * m_callDepth * m_deepestFrame;
    return {m_out, stackBytes};
}

void Inliner::fail(const Instruction& in, const std::string& message) const {
    throw DiagnosticError(Diagnostic{m_cudaFile, in.cudaLoc.line, in.cudaLoc.column,
                                     message + " (PTX line " + std::to_string(in.ptxLine) + ")"});
}

// A register of the callee under a name of its own: its prefix and digits kept, so that the kinds known by
// prefix (%rd is 64 bits, %f float) stay known.
std::string Inliner::renamed(const std::string& name, const std::string& suffix) const {
    if (suffix.empty()) return name;
    size_t digits = name.find_last_not_of("0123456789") + 1;
    if (digits == name.size() || digits < 2) return name + "_" + suffix;
    return name.substr(0, digits) + suffix + "00000" + name.substr(digits);
}

Operand Inliner::rename(Operand o, const Body& b) const {
    if (o.kind == Kind::Reg) o.name = renamed(o.name, b.suffix);
    if (o.kind == Kind::Address && !o.name.empty() && o.name[0] == '%') o.name = renamed(o.name, b.suffix);
    if (o.kind == Kind::Label && !b.labelSuffix.empty()) o.name += "_" + b.labelSuffix;
    if (o.kind == Kind::Vector) {
        std::string out = "{", cur;
        for (char c : o.name.substr(1)) {
            if (c == ',' || c == '}') {
                out += (cur.empty() || cur[0] != '%' ? cur : renamed(cur, b.suffix)) + c;
                cur.clear();
            } else if (!std::isspace(static_cast<unsigned char>(c))) {
                cur += c;
            }
        }
        o.name = out;
    }
    return o;
}

// The register that carries a result's word from the callee to its call site, of the kind its type needs:
// 64 bits (%rd), float (%f), 16 bits (%rs) or 32 bits (%r).
Operand Inliner::resultCarrier(const std::string& type, const Body& b, int64_t offset) {
    int bits = elementBytes(type) * 8;
    std::string prefix = type[0] == 'f' ? "%f" : bits == 64 ? "%rd" : bits < 32 ? "%rs" : "%r";
    std::string name = prefix + "8" + b.suffix.substr(1) + "00000" + std::to_string(offset);
    if (type[0] == 'f') m_out.floatRegisters.push_back(name);
    return {Kind::Reg, name, 0, false};
}

const ptx::Function* Inliner::callee(const std::string& name) const {
    for (const auto& f : m_module.functions)
        if (f.name == name && !f.body.empty()) return &f;
    return nullptr;
}

// Copies `b` into the kernel. A recursive function's copy that starts at `site` (its return site) begins
// there, with the frame popped; until then, and after each call of a recursive function, it copies only
// what a label makes reachable.
void Inliner::emitBody(Body& b, size_t start, int site) {
    std::map<size_t, std::vector<std::string>> labelsAt;
    for (const auto& [label, index] : b.fn.labels) labelsAt[index].push_back(label);
    CallSequence seq;
    b.unreached = site != 0;
    for (size_t i = 0; i <= b.fn.body.size(); ++i) {
        if (site && i == start) {
            const Instruction& call = b.fn.body[i - 1];
            CallTarget target = callTarget(call);
            popFrame(call, m_frames.at(site), site, m_out);
            returnValues(*callee(target.name), target, seq);
            b.unreached = false;
        }
        for (const std::string& label : labelsAt[i]) {
            m_out.labels[b.labelSuffix.empty() ? label : label + "_" + b.labelSuffix] = m_out.body.size();
            b.unreached = false;
        }
        b.at = i;
        if (i < b.fn.body.size() && !b.unreached) emitInstruction(b.fn.body[i], b, seq);
    }
}

void Inliner::emitInstruction(const Instruction& in, Body& b, CallSequence& seq) {
    const std::string& op = in.parts[0];
    bool ownParam = false;  // the function's own parameter (the kernel's stay as they are)
    for (const auto& p : b.fn.params)
        for (const auto& o : in.operands)
            ownParam |= (o.kind == Kind::Address || o.kind == Kind::Symbol) && o.name == p.name;
    if (op == "call") return inlineCall(in, seq, b);
    if (op == "st" && in.has("param")) {  // an argument of the next call, or this function's result
        const Operand& at = in.operands[0];
        std::vector<Operand> values = vectorElements(rename(in.operands[1], b));
        int bytes = elementBytes(typeOf(in));
        for (size_t i = 0; i < values.size(); ++i) {
            int64_t offset = at.value + int64_t(i) * bytes;
            if (at.name != "func_retval0") {
                seq.stored[key(at.name, offset)] = values[i];
                seq.storedTypes[key(at.name, offset)] = typeOf(in);
                continue;
            }
            Operand& carrier = b.results[key(at.name, offset)];
            if (carrier.name.empty()) carrier = resultCarrier(typeOf(in), b, offset);
            m_out.body.push_back(mov(in, typeOf(in), carrier, values[i]));
        }
        return;
    }
    if (op == "ld" && in.has("param") && !b.suffix.empty() && ownParam) return paramLoad(in, b.args, b);
    if (op == "ld" && in.has("param") && seq.returned.count(key(in.operands[1].name, in.operands[1].value)))
        return paramLoad(in, seq.returned, b);
    if ((op == "ret" || op == "exit") && !b.suffix.empty()) {
        if (op == "exit") fail(in, "exit inside a device function is not supported: return from it");
        Instruction jump = in;
        if (!jump.guard.empty()) jump.guard = renamed(jump.guard, b.suffix);
        jump.parts = {"bra"};
        jump.opcode = "bra";
        jump.operands = {{Kind::Label, b.returnLabel, 0, false}};
        return m_out.body.push_back(jump);
    }
    if (!b.suffix.empty() && ownParam)
        fail(in,
             "a device function that takes its parameter's address is not "
             "supported: copy the parameter into a local variable");
    Instruction copy = in;
    if (!copy.guard.empty()) copy.guard = renamed(copy.guard, b.suffix);
    for (auto& o : copy.operands) o = rename(o, b);
    m_out.body.push_back(copy);
}

// ld.param of a parameter (or of a call's result): a mov from the value stored for it, or the conversion
// the load makes where it is narrower than its register (ld.param.u32 into %rd zero-extends, ld.param.u8
// keeps 8 bits).
void Inliner::paramLoad(const Instruction& in, const std::map<std::string, Operand>& from, Body& b) {
    const Operand& at = in.operands[1];
    std::vector<Operand> dests = vectorElements(rename(in.operands[0], b));
    const std::string type = typeOf(in);
    int bytes = elementBytes(type);
    for (size_t i = 0; i < dests.size(); ++i) {
        auto it = from.find(key(at.name, at.value + int64_t(i) * bytes));
        if (it == from.end()) fail(in, "a device function's parameter that its call does not pass");
        if (dests[i].kind != Kind::Reg) continue;
        int width = registerBits(dests[i].name);
        if (type[0] == 'f' || 8 * bytes >= width) {
            m_out.body.push_back(mov(in, type, dests[i], it->second));
            continue;
        }
        Instruction widen = mov(in, type, dests[i], it->second);
        std::string from = std::string(type[0] == 's' ? "s" : "u") + std::to_string(8 * bytes);
        widen.parts = {"cvt", std::string(1, from[0]) + std::to_string(width), from};
        widen.opcode = "cvt." + widen.parts[1] + "." + from;
        m_out.body.push_back(widen);
    }
}

CallTarget Inliner::callTarget(const Instruction& call) const {
    CallTarget t;
    for (const auto& o : call.operands) {
        if (o.kind == Kind::Symbol && !o.name.empty() && o.name[0] == '(')
            (t.name.empty() ? t.results : t.args) = names(o.name);
        else if (o.kind == Kind::Symbol)
            t.name = o.name;
        else
            fail(call, "calls through a function pointer are not supported: call the function by its name");
    }
    return t;
}

void Inliner::inlineCall(const Instruction& call, CallSequence& seq, Body& caller) {
    CallTarget target = callTarget(call);
    if (!call.guard.empty()) fail(call, "a guarded call is not supported");
    const ptx::Function* fn = callee(target.name);
    std::string shown = llvm::demangle(target.name);
    if (!fn) fail(call, "'" + shown + "' is not a function of the kernel's file; the machine has no library to call");
    if (target.args.size() != fn->params.size())
        fail(call, "the call passes " + std::to_string(target.args.size()) + " arguments to '" + shown +
                       "', which takes " + std::to_string(fn->params.size()));
    if (m_recursive.count(target.name)) return callSubroutine(call, *fn, target, seq, caller);
    const std::vector<std::string>& args = target.args;
    Body body{*fn, "9" + std::to_string(++m_calls), {}, "$L__return_" + std::to_string(m_calls)};
    for (const auto& [k, value] : seq.stored)  // param0+off -> the callee's own parameter name
        for (size_t i = 0; i < args.size(); ++i)
            if (k.rfind(args[i] + "+", 0) == 0) body.args[fn->params[i].name + k.substr(args[i].size())] = value;
    seq.stored.clear();
    emitBody(body);
    m_out.labels[body.returnLabel] = m_out.body.size();
    for (const auto& [k, carrier] : body.results)  // func_retval0+off -> retval0+off, as the call site reads it
        if (!target.results.empty()) seq.returned[target.results[0] + k.substr(k.find('+'))] = carrier;
    for (const auto& f : fn->floatRegisters)
        m_out.floatRegisters.push_back(f.back() == '<' ? f : renamed(f, body.suffix));
}

}  // namespace inlining

InlinedKernel inlineCalls(const ptx::Module& module, const ptx::Function& kernel, const std::string& cudaFile,
                          int callDepth) {
    return inlining::Inliner(module, cudaFile, callDepth).run(kernel);
}

}  // namespace qgpu::lowering
