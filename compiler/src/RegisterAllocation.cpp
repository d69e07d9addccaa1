#include <algorithm>
#include <map>
#include <set>

#include "Passes.h"
#include "qgpu/core/Diagnostic.h"

namespace qgpu::lowering {
namespace {

using RegSet = std::set<int>;

bool isCopy(const VInst& v) { return v.op == Opcode::Mov && !v.useImm && v.immSymbol.empty() && v.rs2 != kZeroReg; }

// Per-lane liveness: each lane runs its own path through the blocks, so SIMT execution needs no more
// than the scalar analysis (a waiting lane's registers are written only by that lane).
std::vector<RegSet> liveOut(const VProgram& p) {
    size_t n = p.blocks.size();
    std::vector<RegSet> in(n), out(n);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t b = n; b-- > 0;) {
            const VBlock& blk = p.blocks[b];
            RegSet o;
            for (int s : blk.successors()) o.insert(in[size_t(s)].begin(), in[size_t(s)].end());
            RegSet live = o;
            for (int u : blk.term.uses()) live.insert(u);
            for (auto it = blk.body.rbegin(); it != blk.body.rend(); ++it) {
                if (it->rd != kZeroReg) live.erase(it->rd);
                for (int u : it->uses()) live.insert(u);
            }
            if (o != out[b] || live != in[b]) out[b] = std::move(o), in[b] = std::move(live), changed = true;
        }
    }
    return out;
}

bool removeDeadCode(VProgram& p) {
    bool changed = false;
    std::vector<RegSet> out = liveOut(p);
    for (size_t b = 0; b < p.blocks.size(); ++b) {
        VBlock& blk = p.blocks[b];
        RegSet live = out[b];
        for (int u : blk.term.uses()) live.insert(u);
        std::vector<VInst> kept;
        for (auto it = blk.body.rbegin(); it != blk.body.rend(); ++it) {
            VInst v = *it;
            bool dead = v.rd != kZeroReg && !live.count(v.rd);
            if (dead && !v.hasSideEffects()) {
                changed = true;
                continue;
            }
            if (dead) v.rd = kZeroReg, changed = true;  // an atomic whose old value nobody reads
            if (v.rd != kZeroReg) live.erase(v.rd);
            for (int u : v.uses()) live.insert(u);
            kept.push_back(v);
        }
        std::reverse(kept.begin(), kept.end());
        blk.body = std::move(kept);
    }
    return changed;
}

struct Graph {
    std::map<int, RegSet> edges;
    std::map<int, RegSet> moves;  // copy-related registers, to share a register when possible
    size_t maxPressure = 0;
    SourceLoc pressureAt;

    void node(int r) { edges[r]; }
    void edge(int a, int b) {
        if (a == b) return;
        edges[a].insert(b);
        edges[b].insert(a);
    }
};

Graph interference(const VProgram& p) {
    Graph g;
    std::vector<RegSet> out = liveOut(p);
    for (size_t b = 0; b < p.blocks.size(); ++b) {
        const VBlock& blk = p.blocks[b];
        RegSet live = out[b];
        for (int u : blk.term.uses()) live.insert(u), g.node(u);
        for (auto it = blk.body.rbegin(); it != blk.body.rend(); ++it) {
            if (live.size() > g.maxPressure) g.maxPressure = live.size(), g.pressureAt = it->loc;
            if (it->rd != kZeroReg) {
                g.node(it->rd);
                for (int l : live)
                    if (!(isCopy(*it) && l == it->rs2)) g.edge(it->rd, l);
                live.erase(it->rd);
            }
            if (isCopy(*it)) g.moves[it->rd].insert(it->rs2), g.moves[it->rs2].insert(it->rd);
            for (int u : it->uses()) live.insert(u), g.node(u);
        }
    }
    return g;
}

// Chaitin-Briggs: simplify nodes of degree < K, push the rest optimistically, then colour in reverse.
std::map<int, int> colour(const Graph& g, int k) {
    std::map<int, RegSet> work = g.edges;
    std::vector<int> stack;
    while (!work.empty()) {
        auto pick = std::min_element(work.begin(), work.end(),
                                     [](const auto& a, const auto& b) { return a.second.size() < b.second.size(); });
        int r = pick->first;
        for (int m : pick->second) work[m].erase(r);
        work.erase(pick);
        stack.push_back(r);
    }
    std::map<int, int> colours;
    for (auto it = stack.rbegin(); it != stack.rend(); ++it) {
        std::set<int> taken;
        for (int m : g.edges.at(*it))
            if (colours.count(m)) taken.insert(colours[m]);
        int chosen = -1;
        if (auto mv = g.moves.find(*it); mv != g.moves.end())
            for (int m : mv->second)
                if (colours.count(m) && !taken.count(colours[m])) chosen = colours[m];
        for (int c = 1; chosen < 0 && c <= k; ++c)
            if (!taken.count(c)) chosen = c;
        if (chosen < 0) return {};
        colours[*it] = chosen;
    }
    return colours;
}

// The values that are floats: PTX .f32 registers, and temporaries every definition of which copies a float
// (a routine's argument registers, say). A PTX register keeps its declared type: `mov.b32 %r1, %f1`
// (__float_as_int) makes an integer.
RegSet floatValues(const VProgram& p) {
    RegSet floats = p.floatVregs;
    for (bool changed = true; changed;) {
        changed = false;
        std::map<int, bool> copiesOfFloats;
        for (const VBlock& blk : p.blocks)
            for (const VInst& v : blk.body)
                if (v.rd != kZeroReg && !p.ptxVregs.count(v.rd)) {
                    bool copy = isCopy(v) && floats.count(v.rs2);
                    auto [it, fresh] = copiesOfFloats.emplace(v.rd, copy);
                    if (!fresh) it->second = it->second && copy;
                }
        for (const auto& [r, copy] : copiesOfFloats)
            if (copy && floats.insert(r).second) changed = true;
    }
    return floats;
}

// Marks, before every instruction, the machine registers holding a float (for the debugger's views): a
// register holds one from a definition of a float value until its next definition, and where paths meet,
// when no path reaching there defined it as something else.
void markFloatRegisters(VProgram& p, const std::map<int, int>& colours) {
    struct Defined {
        uint16_t floats = 0, others = 0;  // registers some path defined as a float / as anything else
        bool operator!=(const Defined& o) const { return floats != o.floats || others != o.others; }
        uint16_t floatsOnly() const { return uint16_t(floats & ~others); }
    };
    RegSet floats = floatValues(p);
    auto define = [&](Defined& d, const VInst& v) {
        if (v.rd == kZeroReg) return;
        auto bit = uint16_t(1u << colours.at(v.rd));
        bool isFloat = floats.count(v.rd) > 0;
        d.floats = uint16_t(isFloat ? d.floats | bit : d.floats & ~bit);
        d.others = uint16_t(isFloat ? d.others & ~bit : d.others | bit);
    };
    size_t n = p.blocks.size();
    std::vector<Defined> in(n);
    for (bool changed = true; changed;) {
        changed = false;
        for (size_t b = 0; b < n; ++b) {
            Defined d = in[b];
            for (const VInst& v : p.blocks[b].body) define(d, v);
            for (int s : p.blocks[b].successors()) {
                Defined merged{uint16_t(in[size_t(s)].floats | d.floats), uint16_t(in[size_t(s)].others | d.others)};
                if (merged != in[size_t(s)]) in[size_t(s)] = merged, changed = true;
            }
        }
    }
    for (size_t b = 0; b < n; ++b) {
        Defined d = in[b];
        for (VInst& v : p.blocks[b].body) {
            v.floatRegistersBefore = d.floatsOnly();
            define(d, v);
        }
        p.blocks[b].term.floatRegistersBefore = d.floatsOnly();
    }
}

// The values spilled so far: the frame's address (computed once, at the entry) and the registers that spill
// code loads into or stores from, none of which is spilled again.
struct SpillState {
    int frameBase = -1;
    std::set<int> unspillable;
    static constexpr int kMaxSpills = 64;

    // The value that interferes with the most others, or -1 when none may be spilled.
    int candidate(const Graph& g) const {
        int best = -1;
        size_t degree = 0;
        for (const auto& [r, neighbours] : g.edges)
            if (!unspillable.count(r) && neighbours.size() > degree) best = r, degree = neighbours.size();
        return best;
    }

    void spill(VProgram& p, SpillFrame& frame, int value) {
        if (frameBase < 0) {
            frameBase = p.vregCount++;
            unspillable.insert(frameBase);
            auto& first = p.blocks[0].body;
            SourceLoc loc = first.empty() ? p.blocks[0].term.loc : first.front().loc;
            std::vector<VInst> entry = frameAddress(frameBase, frame.lanes, p.vregCount, loc);
            for (const VInst& v : entry)
                if (v.rd != kZeroReg) unspillable.insert(v.rd);
            auto& body = p.blocks[0].body;
            body.insert(body.begin(), entry.begin(), entry.end());
        }
        spillValue(p, value, frameBase, frame.firstWord + frame.spilled++, unspillable);
    }
};

}  // namespace

int allocateRegisters(VProgram& p, int registers, const std::string& cudaFile, const std::string& advice,
                      SpillFrame* frame) {
    std::map<int, int> colours;
    for (SpillState spills;;) {
        while (removeDeadCode(p)) {
        }
        Graph g = interference(p);
        colours = colour(g, registers);
        if (colours.size() == g.edges.size()) break;
        int value = frame && frame->spilled < SpillState::kMaxSpills ? spills.candidate(g) : -1;
        if (value < 0)
            throw DiagnosticError(Diagnostic{
                cudaFile, g.pressureAt.line, g.pressureAt.column,
                "the kernel needs more registers than the machine's " + std::to_string(registers) + " (" +
                    std::to_string(g.maxPressure) + " values live here" +
                    (frame && frame->spilled ? ", after spilling " + std::to_string(frame->spilled) + " to local memory"
                                             : "") +
                    "); split the work or keep fewer values alive" + advice});
        spills.spill(p, *frame, value);
    }
    auto map = [&](int& r) {
        if (r != kZeroReg) r = colours.at(r);
    };
    markFloatRegisters(p, colours);
    int used = 0;
    for (const auto& [r, c] : colours) used = std::max(used, c);
    for (auto& blk : p.blocks) {
        std::vector<VInst> kept;
        for (VInst v : blk.body) {
            for (int* r : {&v.rd, &v.rs1, &v.rs2, &v.rc}) map(*r);
            if (isCopy(v) && v.rd == v.rs2) continue;  // coalesced
            kept.push_back(v);
        }
        blk.body = std::move(kept);
        map(blk.term.rc);
    }
    return used;
}

}  // namespace qgpu::lowering
