#include "PtxLiveness.h"

#include "PtxParsing.h"

namespace qgpu::lowering {
namespace {

using ptx::Instruction;
using ptx::Operand;
using Kind = Operand::Kind;

// The instructions whose first operand is not a destination.
bool definesFirst(const Instruction& in) {
    static const std::set<std::string> none = {"st",  "bar",    "barrier", "bra",      "ret",  "exit", "call",
                                               "red", "membar", "fence",   "prefetch", "trap", "brkpt"};
    return !in.operands.empty() && !none.count(in.parts[0]);
}

void registersOf(const Operand& o, std::set<std::string>& out) {
    if (o.kind == Kind::Reg || (o.kind == Kind::Address && !o.name.empty() && o.name[0] == '%')) out.insert(o.name);
    if (o.kind == Kind::Vector)
        for (const Operand& e : ptx::vectorElements(o))
            if (e.kind == Kind::Reg) out.insert(e.name);
}

struct Effect {
    std::set<std::string> reads, ends;  // ends: definitions that always happen
};

Effect effectOf(const Instruction& in) {
    Effect e;
    bool defines = definesFirst(in);
    for (size_t k = defines ? 1 : 0; k < in.operands.size(); ++k) registersOf(in.operands[k], e.reads);
    if (!in.guard.empty()) e.reads.insert(in.guard);
    if (defines && in.operands[0].kind != Kind::Address) {
        std::set<std::string> written;
        registersOf(in.operands[0], written);
        (in.guard.empty() ? e.ends : e.reads).merge(written);  // a guarded write may keep the old value
    }
    return e;
}

std::vector<size_t> successors(const ptx::Function& fn, size_t i) {
    const Instruction& in = fn.body[i];
    const std::string& op = in.parts[0];
    std::vector<size_t> out;
    if (op == "bra") {
        auto it = fn.labels.find(in.operands.at(0).name);
        if (it != fn.labels.end()) out.push_back(it->second);
    }
    bool leaves = op == "ret" || op == "exit" || op == "bra";
    if ((!leaves || !in.guard.empty()) && i + 1 < fn.body.size()) out.push_back(i + 1);
    return out;
}

}  // namespace

std::vector<std::set<std::string>> liveAfter(const ptx::Function& fn) {
    size_t n = fn.body.size();
    std::vector<Effect> effects;
    for (const Instruction& in : fn.body) effects.push_back(effectOf(in));
    std::vector<std::set<std::string>> before(n), after(n);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t i = n; i-- > 0;) {
            for (size_t s : successors(fn, i)) after[i].insert(before[s].begin(), before[s].end());
            std::set<std::string> in = effects[i].reads;
            for (const std::string& r : after[i])
                if (!effects[i].ends.count(r)) in.insert(r);
            if (in.size() != before[i].size()) before[i] = std::move(in), changed = true;
        }
    }
    return after;
}

}  // namespace qgpu::lowering
