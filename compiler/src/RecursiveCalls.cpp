// Recursive device functions: placed after the kernel in copies, one per way in (CallStack.h, Inliner.h),
// and called on the call stack.
#include <llvm/Demangle/Demangle.h>

#include <algorithm>

#include "Inliner.h"
#include "PtxLiveness.h"
#include "PtxParsing.h"

namespace qgpu::lowering::inlining {

using Kind = Operand::Kind;

namespace {

// The functions `fn` calls by name.
std::set<std::string> calleesOf(const ptx::Function& fn) {
    std::set<std::string> out;
    for (const Instruction& in : fn.body)
        if (in.parts[0] == "call")
            for (const Operand& o : in.operands)
                if (o.kind == Kind::Symbol && !o.name.empty() && o.name[0] != '(') out.insert(o.name);
    return out;
}

// Every function `fn` reaches through its calls, directly or not.
std::set<std::string> reachedFrom(const ptx::Module& module, const ptx::Function& fn) {
    std::set<std::string> seen;
    std::vector<const ptx::Function*> todo{&fn};
    while (!todo.empty()) {
        const ptx::Function* f = todo.back();
        todo.pop_back();
        for (const std::string& c : calleesOf(*f))
            if (seen.insert(c).second)
                for (const auto& g : module.functions)
                    if (g.name == c) todo.push_back(&g);
    }
    return seen;
}

}  // namespace

bool reachesRecursion(const ptx::Module& module, const ptx::Function& fn, const std::set<std::string>& recursive) {
    std::set<std::string> reached = reachedFrom(module, fn);
    return std::any_of(reached.begin(), reached.end(), [&](const std::string& f) { return recursive.count(f); });
}

std::set<std::string> recursiveFunctions(const ptx::Module& module) {
    std::set<std::string> out;
    for (const auto& f : module.functions)
        if (reachedFrom(module, f).count(f.name)) out.insert(f.name);
    return out;
}

// A register that carries a value into a subroutine or out of it, of the kind its type needs.
Operand Inliner::carrier(const std::string& type, const std::string& role, int64_t offset) {
    int bits = elementBytes(type) * 8;
    std::string prefix = type[0] == 'f' ? "%f" : bits == 64 ? "%rd" : bits < 32 ? "%rs" : "%r";
    std::string name = prefix + role + std::to_string(++m_carriers) + "00000" + std::to_string(offset);
    if (type[0] == 'f') m_out.floatRegisters.push_back(name);
    return {Kind::Reg, name, 0, false};
}

// A recursive function, made at its first call: its registers renamed once for all its copies, its
// results' carriers made before any call site reads them, its entry the first copy to place.
Inliner::Subroutine& Inliner::subroutine(const ptx::Function& fn) {
    std::unique_ptr<Subroutine>& s = m_subroutines[fn.name];
    if (s) return *s;
    std::string suffix = "9" + std::to_string(++m_calls);
    s.reset(new Subroutine{Body{fn, suffix, {}, kReturnLabel},
                           "$L__qgpu_entry_" + suffix,
                           liveAfter(fn),
                           -int(m_subroutines.size()),
                           {{0, 0}},
                           0});
    s->body.subroutine = s.get();
    for (const Instruction& in : fn.body)
        if (in.parts[0] == "st" && in.has("param") && in.operands[0].name == "func_retval0") {
            int bytes = elementBytes(typeOf(in));
            for (size_t i = 0; i < ptx::vectorElements(in.operands[1]).size(); ++i) {
                int64_t offset = in.operands[0].value + int64_t(i) * bytes;
                Operand& c = s->body.results[key("func_retval0", offset)];
                if (c.name.empty()) c = carrier(typeOf(in), "5", offset);
            }
        }
    for (const auto& f : fn.floatRegisters) m_out.floatRegisters.push_back(f.back() == '<' ? f : renamed(f, suffix));
    return *s;
}

// The words of the local depots a function's body uses (at -O0 its variables), which a recursive call
// would overwrite.
std::vector<Operand> Inliner::depotWords(const ptx::Function& fn) const {
    std::set<std::string> used;
    for (const Instruction& in : fn.body)
        for (const Operand& o : in.operands) used.insert(o.name);
    std::vector<Operand> out;
    for (const ptx::SharedArray& depot : m_module.locals)
        if (used.count(depot.name))
            for (int64_t byte = 0; byte < depot.bytes; byte += 4)
                out.push_back({Kind::Address, depot.name, byte, false});
    return out;
}

// The return site of a call and its frame: one per call instruction of a recursive caller (whichever copy
// it is in; the first makes the copy that starts there), which keeps the caller's registers live after the
// call and its depot; a fresh one, keeping nothing, for any other caller, whose registers are its own.
int Inliner::returnSite(const Body& caller) {
    std::pair<std::string, size_t> at{caller.fn.name, caller.at};
    if (caller.subroutine && m_siteOf.count(at)) return m_siteOf.at(at);
    int site = int(m_sites.size()) + 1;
    std::set<std::string> live;
    std::vector<Operand> depot;
    if (caller.subroutine) {
        for (const std::string& r : caller.subroutine->live[caller.at]) live.insert(renamed(r, caller.suffix));
        depot = depotWords(caller.fn);
        m_siteOf[at] = site;
        m_subroutines.at(caller.fn.name)->copies.push_back({caller.at + 1, site});
    }
    m_frames[site] = callFrame(live, depot);
    m_deepestFrame = std::max(m_deepestFrame, m_frames[site].words);
    m_sites.push_back(site);
    return site;
}

// What the call site's ld.param of the result reads: the callee's result carriers.
void Inliner::returnValues(const ptx::Function& fn, const CallTarget& target, CallSequence& seq) const {
    if (target.results.empty()) return;
    for (const auto& [k, c] : m_subroutines.at(fn.name)->body.results)
        seq.returned[target.results[0] + k.substr(k.find('+'))] = c;
}

// A call of a recursive function: the frame pushed, the arguments moved into the callee's carriers, and the
// trampoline entered for the callee. A recursive caller's copy ends there (its return site starts a copy of
// its own); any other caller goes on at the return site, which pops the frame.
void Inliner::callSubroutine(const Instruction& call, const ptx::Function& fn, const CallTarget& target,
                             CallSequence& seq, Body& caller) {
    Subroutine& s = subroutine(fn);
    int site = returnSite(caller);
    pushFrame(call, m_frames.at(site), site, m_callDepth, m_out);
    for (const auto& [k, value] : seq.stored)
        for (size_t i = 0; i < target.args.size(); ++i) {
            if (k.rfind(target.args[i] + "+", 0) != 0) continue;
            std::string own = fn.params[i].name + k.substr(target.args[i].size()), type = seq.storedTypes[k];
            Operand& c = s.body.args[own];
            if (c.name.empty()) c = carrier(type, "6", int64_t(i)), m_carrierTypes[c.name] = type;
            if (m_carrierTypes[c.name] != type)
                fail(call, "'" + llvm::demangle(fn.name) + "' is called with arguments of different types");
            m_out.body.push_back(mov(call, type, c, value));
        }
    seq.stored.clear();
    enterTrampoline(call, s.number, m_out);
    if (caller.subroutine) {
        caller.unreached = true;
        return;
    }
    popFrame(call, m_frames.at(site), site, m_out);
    returnValues(fn, target, seq);
}

// Every copy of every recursive function (placing one may call for more), then the return path and the
// trampoline that all calls and returns pass.
void Inliner::emitSubroutines() {
    for (bool more = true; more;) {
        more = false;
        for (auto& [name, s] : m_subroutines)
            while (s->placed < s->copies.size()) {
                auto [start, site] = s->copies[s->placed++];
                more = true;
                Body copy = s->body;
                copy.labelSuffix = s->body.suffix + "c" + std::to_string(s->placed);
                if (site == 0) m_out.labels[s->entry] = m_out.body.size();
                emitBody(copy, start, site);
            }
    }
    if (m_subroutines.empty()) return;
    std::vector<std::pair<int, std::string>> targets;
    for (const auto& [name, s] : m_subroutines) targets.push_back({s->number, s->entry});
    for (int site : m_sites) targets.push_back({site, returnSiteLabel(site)});
    const Instruction& at = m_subroutines.begin()->second->body.fn.body.front();
    returnPath(at, m_out);
    trampoline(at, targets, m_out);
}

}  // namespace qgpu::lowering::inlining
