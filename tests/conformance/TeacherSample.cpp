#include "TeacherSample.h"

#include <algorithm>
#include <stdexcept>

#include "qgpu/core/Interpreter.h"

namespace qgpu::conformance {
namespace {

std::string num(int v) { return std::to_string(v); }

// An instruction as the circuit tells instructions apart: its opcode, where operand b comes from (a
// register, the immediate or a special register) and a shuffle's width.
std::string instructionFeature(const Instruction& in) {
    const OpcodeInfo& info = opcodeInfo(in.op);
    std::string f = "op " + std::string(info.mnemonic);
    switch (info.form) {
        case OperandForm::RdAB:
        case OperandForm::RdB:
        case OperandForm::RdABC:
        case OperandForm::Shuffle: f += in.useImm ? " imm" : " reg"; break;
        case OperandForm::RdSreg: f += " " + std::string(specialRegName(SpecialReg(in.imm))); break;
        default: break;
    }
    if (info.form == OperandForm::Shuffle) f += " width " + num(1 << in.aux);
    return f;
}

std::string shapeFeature(const char* what, const std::array<int, 3>& s) {
    std::string f = what;
    if (s[1] > 1) f += " 2-D";
    if (s[2] > 1) f += " 3-D";
    return f;
}

// Records a feature with the records a teacher must check to see it, keeping the earliest.
void note(FeatureReach& f, const std::string& feature, size_t reach) {
    auto [it, fresh] = f.emplace(feature, reach);
    if (!fresh) it->second = std::min(it->second, reach);
}

void addFed(FeatureReach& f, const gpu::Token& t, size_t reach) {
    switch (t.kind) {
        case gpu::Kind::Byte: note(f, "fed BYTE k" + num(t.byteIndex) + (t.last ? " last" : ""), reach); break;
        case gpu::Kind::RomWrite:
            note(f,
                 std::string("fed ROM ") + (t.small ? "small " : "spelt ") + (t.part ? "imm " : "fields ") +
                     (t.slot == gpu::kSlots ? "terminator" : "body") + " bank " + num(t.block / 32),
                 reach);
            break;
        case gpu::Kind::MemWrite:
            note(f, std::string("fed MEM ") + (t.small ? "small" : "spelt") + " bank " + num(t.address / 128), reach);
            break;
        case gpu::Kind::BlockDim:
            note(f, shapeFeature("fed BLOCK", t.shape), reach);
            if ((t.shape[0] * t.shape[1] * t.shape[2]) % gpu::kLanes) note(f, "fed BLOCK partial warp", reach);
            break;
        case gpu::Kind::GridDim:
            note(f, shapeFeature("fed GRID", t.shape), reach);
            if (t.shape[0] * t.shape[1] * t.shape[2] > 1) note(f, "fed GRID several blocks", reach);
            break;
        default: break;
    }
}

void addWritten(FeatureReach& f, const Program& p, const gpu::Token& t, size_t reach) {
    switch (t.kind) {
        case gpu::Kind::Exec: {
            if (t.mask == 0) {
                note(f, "EXEC empty pass", reach);
                break;
            }
            note(f, "EXEC ROM bank " + num(t.block / 32), reach);
            note(f, "EXEC register bank " + num(t.warp / 8), reach);
            const Block& b = p.blocks[size_t(t.block)];
            for (const Instruction& in : b.body) note(f, instructionFeature(in), reach);
            note(f, instructionFeature(b.terminator), reach);
            break;
        }
        case gpu::Kind::Val:
            note(f, "VAL slot " + num(t.slot) + " lane " + num(t.lane), reach);
            note(f, "VAL k" + num(t.byteIndex) + (t.last ? (t.value & 0x80 ? " last negative" : " last") : ""), reach);
            break;
        case gpu::Kind::Release: note(f, "RELEASE epoch " + num(t.epoch), reach); break;
        case gpu::Kind::End: note(f, "END", reach); break;
        case gpu::Kind::Fault: note(f, "FAULT", reach); break;
        default: break;
    }
}

// For each record, the records through the end of its warp step: an EXEC with the VAL records after it, or
// one record (a RELEASE, END, FAULT or the EXEC of a warp with nothing to run, which has no VALs).
std::vector<size_t> stepEnds(const std::vector<gpu::Token>& stream) {
    std::vector<size_t> end(stream.size());
    size_t next = stream.size();
    for (size_t k = stream.size(); k-- > 0;) {
        end[k] = next;
        if (stream[k].kind != gpu::Kind::Val) next = k;
    }
    return end;
}

// What the stream does not spell: divergence, branches that split a warp, the memory banks written. The
// interpreter's k-th step is the stream's k-th EXEC of a warp with something to run; `reach` holds their ends.
void addSteps(FeatureReach& f, const Program& p, const LaunchSpec& launch, const std::vector<size_t>& reach) {
    Interpreter interp(p, launch);
    for (size_t k = 0; !interp.done(); ++k) {
        StepEvent ev = interp.step();
        if (k >= reach.size()) throw std::logic_error("the interpreter took more steps than the stream has");
        if (ev.maskBefore != ev.liveBefore) note(f, "step: part of a warp runs", reach[k]);
        if (ev.barrierReleased) note(f, "step: barrier released", reach[k]);
        const Instruction& term = p.blocks[size_t(ev.block)].terminator;
        bool taken = false, notTaken = false;
        for (const LaneChange& c : ev.laneChanges) {
            taken |= c.pcAfter == term.target();
            notTaken |= c.pcAfter == term.elseTarget();
        }
        if (term.op == Opcode::Br && taken && notTaken && term.target() != term.elseTarget())
            note(f, "step: br splits the warp", reach[k]);
        for (const MemWrite& w : ev.memWrites)
            note(f,
                 w.space == MemSpace::Global ? "write global bank " + num(w.addr / 128)
                                             : "write shared, block parity " + num(w.cta % 2),
                 reach[k]);
    }
}

// One way to extend the sample: teach `records` records of a candidate, for `fresh` features not yet covered.
struct Option {
    size_t candidate = std::string::npos, records = 0, tokens = 0, fresh = 0;
};

// Fewer tokens per new feature (cross-multiplied), then more new features; an equal option loses, so the
// earlier candidate and the shorter prefix win ties.
bool cheaper(const Option& a, const Option& b) {
    if (b.candidate == std::string::npos) return true;
    if (a.tokens * b.fresh != b.tokens * a.fresh) return a.tokens * b.fresh < b.tokens * a.fresh;
    return a.fresh > b.fresh;
}

// The cheapest prefix of each candidate not taken yet, and the cheapest of those (npos when none adds).
Option cheapest(const std::vector<SampleCandidate>& all, const std::vector<bool>& taken, const Features& covered) {
    Option best;
    for (size_t i = 0; i < all.size(); ++i) {
        if (taken[i]) continue;
        std::vector<size_t> reach;
        for (const auto& [feature, r] : all[i].features)
            if (!covered.count(feature)) reach.push_back(r);
        std::sort(reach.begin(), reach.end());
        for (size_t k = 0; k < reach.size(); ++k) {
            if (k + 1 < reach.size() && reach[k + 1] == reach[k]) continue;
            Option o{i, reach[k], all[i].fed + reach[k], k + 1};
            if (cheaper(o, best)) best = o;
        }
    }
    return best;
}

// What a choice's prefix shows.
Features reached(const SampleCandidate& c, size_t records) {
    Features out;
    for (const auto& [feature, r] : c.features)
        if (r <= records) out.insert(feature);
    return out;
}

// Last taken first: shortens each prefix to the features the other choices do not show, and drops a choice
// they show all of.
void trim(const std::vector<SampleCandidate>& all, std::vector<SampleChoice>& chosen) {
    for (size_t k = chosen.size(); k-- > 0;) {
        Features others;
        for (size_t j = 0; j < chosen.size(); ++j)
            if (j != k) others.merge(reached(all[chosen[j].candidate], chosen[j].records));
        size_t need = 0;
        for (const auto& [feature, r] : all[chosen[k].candidate].features)
            if (r <= chosen[k].records && !others.count(feature)) need = std::max(need, r);
        if (need == 0)
            chosen.erase(chosen.begin() + long(k));
        else
            chosen[k].records = need;
    }
}

}  // namespace

FeatureReach launchFeatures(const Program& linked, const LaunchSpec& launch, const std::vector<gpu::Token>& fed,
                            const gpu::ReferenceLaunch& ref) {
    FeatureReach f;
    for (const gpu::Token& t : fed) addFed(f, t, ref.stream.size());
    std::vector<size_t> ends = stepEnds(ref.stream), steps;
    for (size_t i = 0; i < ref.stream.size(); ++i) {
        addWritten(f, linked, ref.stream[i], ends[i]);
        if (ref.stream[i].kind == gpu::Kind::Exec && ref.stream[i].mask != 0) steps.push_back(ends[i]);
    }
    addSteps(f, linked, launch, steps);
    return f;
}

Sample coverSample(const std::vector<SampleCandidate>& candidates) {
    Features covered;
    std::vector<bool> taken(candidates.size());
    Sample s;
    for (Option o; (o = cheapest(candidates, taken, covered)).candidate != std::string::npos;) {
        taken[o.candidate] = true;
        s.chosen.push_back({o.candidate, o.records, {}});
        covered.merge(reached(candidates[o.candidate], o.records));
    }
    trim(candidates, s.chosen);
    covered.clear();
    for (SampleChoice& c : s.chosen) {
        for (const std::string& x : reached(candidates[c.candidate], c.records))
            if (covered.insert(x).second) c.added.insert(x);
        s.tokens += candidates[c.candidate].fed + c.records;
    }
    s.featureCount = covered.size();
    return s;
}

}  // namespace qgpu::conformance
