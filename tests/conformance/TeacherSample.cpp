#include "TeacherSample.h"

#include <algorithm>

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

void addFed(Features& f, const gpu::Token& t) {
    switch (t.kind) {
        case gpu::Kind::Byte: f.insert("fed BYTE k" + num(t.byteIndex) + (t.last ? " last" : "")); break;
        case gpu::Kind::RomWrite:
            f.insert(std::string("fed ROM ") + (t.small ? "small " : "spelt ") + (t.part ? "imm " : "fields ") +
                     (t.slot == gpu::kSlots ? "terminator" : "body") + " bank " + num(t.block / 32));
            break;
        case gpu::Kind::MemWrite:
            f.insert(std::string("fed MEM ") + (t.small ? "small" : "spelt") + " bank " + num(t.address / 128));
            break;
        case gpu::Kind::BlockDim:
            f.insert(shapeFeature("fed BLOCK", t.shape));
            if ((t.shape[0] * t.shape[1] * t.shape[2]) % gpu::kLanes) f.insert("fed BLOCK partial warp");
            break;
        case gpu::Kind::GridDim:
            f.insert(shapeFeature("fed GRID", t.shape));
            if (t.shape[0] * t.shape[1] * t.shape[2] > 1) f.insert("fed GRID several blocks");
            break;
        default: break;
    }
}

void addWritten(Features& f, const Program& p, const gpu::Token& t) {
    switch (t.kind) {
        case gpu::Kind::Exec: {
            if (t.mask == 0) {
                f.insert("EXEC empty pass");
                break;
            }
            f.insert("EXEC ROM bank " + num(t.block / 32));
            f.insert("EXEC register bank " + num(t.warp / 8));
            const Block& b = p.blocks[size_t(t.block)];
            for (const Instruction& in : b.body) f.insert(instructionFeature(in));
            f.insert(instructionFeature(b.terminator));
            break;
        }
        case gpu::Kind::Val:
            f.insert("VAL slot " + num(t.slot) + " lane " + num(t.lane));
            f.insert("VAL k" + num(t.byteIndex) + (t.last ? (t.value & 0x80 ? " last negative" : " last") : ""));
            break;
        case gpu::Kind::Release: f.insert("RELEASE epoch " + num(t.epoch)); break;
        case gpu::Kind::End: f.insert("END"); break;
        case gpu::Kind::Fault: f.insert("FAULT"); break;
        default: break;
    }
}

// What the stream does not spell: divergence, branches that split a warp, the memory banks written.
void addSteps(Features& f, const Program& p, const LaunchSpec& launch) {
    Interpreter interp(p, launch);
    while (!interp.done()) {
        StepEvent ev = interp.step();
        if (ev.maskBefore != ev.liveBefore) f.insert("step: part of a warp runs");
        if (ev.barrierReleased) f.insert("step: barrier released");
        const Instruction& term = p.blocks[size_t(ev.block)].terminator;
        bool taken = false, notTaken = false;
        for (const LaneChange& c : ev.laneChanges) {
            taken |= c.pcAfter == term.target();
            notTaken |= c.pcAfter == term.elseTarget();
        }
        if (term.op == Opcode::Br && taken && notTaken && term.target() != term.elseTarget())
            f.insert("step: br splits the warp");
        for (const MemWrite& w : ev.memWrites)
            f.insert(w.space == MemSpace::Global ? "write global bank " + num(w.addr / 128)
                                                 : "write shared, block parity " + num(w.cta % 2));
    }
}

size_t uncovered(const Features& f, const Features& covered) {
    return size_t(std::count_if(f.begin(), f.end(), [&](const std::string& x) { return !covered.count(x); }));
}

// The candidate with the fewest tokens per new feature, or npos when none adds a feature.
size_t cheapest(const std::vector<SampleCandidate>& all, const std::vector<bool>& taken, const Features& covered) {
    size_t best = std::string::npos, bestNew = 0;
    for (size_t i = 0; i < all.size(); ++i) {
        size_t n = taken[i] ? 0 : uncovered(all[i].features, covered);
        if (n == 0) continue;
        // tokens_i / n < tokens_best / bestNew, cross-multiplied
        bool better = best == std::string::npos || all[i].tokens * bestNew < all[best].tokens * n ||
                      (all[i].tokens * bestNew == all[best].tokens * n && n > bestNew);
        if (better) best = i, bestNew = n;
    }
    return best;
}

// Drops, last taken first, a chosen launch whose features the other chosen launches all have.
void dropRedundant(const std::vector<SampleCandidate>& all, std::vector<size_t>& chosen) {
    for (size_t k = chosen.size(); k-- > 0;) {
        Features others;
        for (size_t j = 0; j < chosen.size(); ++j)
            if (j != k) others.insert(all[chosen[j]].features.begin(), all[chosen[j]].features.end());
        if (uncovered(all[chosen[k]].features, others) == 0) chosen.erase(chosen.begin() + long(k));
    }
}

}  // namespace

Features launchFeatures(const Program& linked, const LaunchSpec& launch, const std::vector<gpu::Token>& fed,
                        const gpu::ReferenceLaunch& ref) {
    Features f;
    for (const gpu::Token& t : fed) addFed(f, t);
    for (const gpu::Token& t : ref.stream) addWritten(f, linked, t);
    addSteps(f, linked, launch);
    return f;
}

Sample coverSample(const std::vector<SampleCandidate>& candidates) {
    Features covered;
    std::vector<bool> taken(candidates.size());
    Sample s;
    for (size_t i; (i = cheapest(candidates, taken, covered)) != std::string::npos;) {
        taken[i] = true;
        s.chosen.push_back(i);
        covered.insert(candidates[i].features.begin(), candidates[i].features.end());
    }
    dropRedundant(candidates, s.chosen);
    covered.clear();
    for (size_t i : s.chosen) {
        Features added;
        for (const std::string& x : candidates[i].features)
            if (covered.insert(x).second) added.insert(x);
        s.newFeatures.push_back(added);
        s.tokens += candidates[i].tokens;
    }
    s.featureCount = covered.size();
    return s;
}

}  // namespace qgpu::conformance
