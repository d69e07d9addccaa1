#include <algorithm>
#include <set>

#include "Passes.h"

namespace qgpu::lowering {
namespace {

std::vector<std::vector<int>> predecessors(const VProgram& p) {
    std::vector<std::vector<int>> preds(p.blocks.size());
    for (size_t b = 0; b < p.blocks.size(); ++b)
        for (int s : p.blocks[b].successors()) preds[size_t(s)].push_back(int(b));
    return preds;
}

// Keeps the blocks reachable from the entry, renumbered in their old order.
void dropUnreachable(VProgram& p) {
    std::vector<int> index(p.blocks.size(), -1);
    std::vector<int> stack{0};
    index[0] = 0;
    while (!stack.empty()) {
        int b = stack.back();
        stack.pop_back();
        for (int s : p.blocks[size_t(b)].successors())
            if (index[size_t(s)] < 0) index[size_t(s)] = 0, stack.push_back(s);
    }
    std::vector<VBlock> kept;
    for (size_t b = 0; b < p.blocks.size(); ++b)
        if (index[b] >= 0) index[b] = int(kept.size()), kept.push_back(std::move(p.blocks[b]));
    for (auto& b : kept) {
        if (b.target >= 0) b.target = index[size_t(b.target)];
        if (b.elseTarget >= 0) b.elseTarget = index[size_t(b.elseTarget)];
    }
    p.blocks = std::move(kept);
}

// Where a jump to `b` really lands: past blocks that hold nothing but a jump.
int finalTarget(const VProgram& p, int b) {
    std::set<int> seen;
    while (p.blocks[size_t(b)].body.empty() && p.blocks[size_t(b)].term.op == Opcode::Jmp && seen.insert(b).second)
        b = p.blocks[size_t(b)].target;
    return b;
}

bool threadJumps(VProgram& p) {
    bool changed = false;
    for (auto& b : p.blocks) {
        for (int* t : {&b.target, &b.elseTarget}) {
            if (*t < 0) continue;
            int f = finalTarget(p, *t);
            if (f != *t) *t = f, changed = true;
        }
        if (b.term.op == Opcode::Br && b.target == b.elseTarget) {
            b.term.op = Opcode::Jmp;
            b.term.rc = kZeroReg;
            b.elseTarget = -1;
            changed = true;
        }
    }
    return changed;
}

bool mergeChains(VProgram& p) {
    auto preds = predecessors(p);
    for (size_t b = 0; b < p.blocks.size(); ++b) {
        VBlock& pb = p.blocks[b];
        if (pb.term.op != Opcode::Jmp) continue;
        int s = pb.target;
        if (s == 0 || s == int(b) || preds[size_t(s)].size() != 1) continue;
        VBlock succ = std::move(p.blocks[size_t(s)]);
        pb.body.insert(pb.body.end(), succ.body.begin(), succ.body.end());
        pb.term = succ.term;
        pb.target = succ.target;
        pb.elseTarget = succ.elseTarget;
        p.blocks[size_t(s)] = VBlock{};  // now unreachable: an empty exit nobody jumps to
        p.blocks[size_t(s)].term.op = Opcode::Exit;
        return true;
    }
    return false;
}

}  // namespace

void simplifyControlFlow(VProgram& p) {
    for (bool changed = true; changed;) {
        dropUnreachable(p);
        changed = threadJumps(p);
        changed = mergeChains(p) || changed;
    }
    dropUnreachable(p);
}

void separateExits(VProgram& p) {
    bool barrier =
        std::any_of(p.blocks.begin(), p.blocks.end(), [](const VBlock& b) { return b.term.op == Opcode::Bar; });
    if (!barrier) return;
    std::vector<bool> taken(p.blocks.size(), false);  // the exit block already serves one edge
    auto targetOf = [&](size_t b, bool elseEdge) -> int& {
        return elseEdge ? p.blocks[b].elseTarget : p.blocks[b].target;
    };
    for (size_t b = 0, n = p.blocks.size(); b < n; ++b) {
        Opcode op = p.blocks[b].term.op;
        for (bool elseEdge : {false, true}) {
            if (op != Opcode::Br && (op != Opcode::Jmp || elseEdge)) continue;
            size_t t = size_t(targetOf(b, elseEdge));
            if (!p.blocks[t].body.empty() || p.blocks[t].term.op != Opcode::Exit) continue;
            if (!taken[t]) {
                taken[t] = true;
                continue;
            }
            VBlock copy = p.blocks[t];
            p.blocks.push_back(copy);
            taken.push_back(true);
            targetOf(b, elseEdge) = int(p.blocks.size() - 1);
        }
    }
}

void layoutBlocks(const VProgram& p, int slots, Program& out, std::vector<LineMapEntry>& lineMap) {
    size_t n = p.blocks.size();
    std::vector<int> order = reconvergenceOrder(p);

    // Machine blocks: each virtual block becomes ceil(body / slots) pieces (at least one) in a row.
    std::vector<int> firstPiece(n, 0);
    int count = 0;
    for (int b : order) {
        firstPiece[size_t(b)] = count;
        count += std::max<int>(1, int((p.blocks[size_t(b)].body.size() + size_t(slots) - 1) / size_t(slots)));
    }
    auto toInstruction = [](const VInst& v) {
        Instruction in;
        in.op = v.op;
        in.rd = uint8_t(v.rd < 0 ? 0 : v.rd);
        in.rs1 = uint8_t(v.rs1 < 0 ? 0 : v.rs1);
        in.rs2 = uint8_t(v.rs2 < 0 ? 0 : v.rs2);
        in.rc = uint8_t(v.rc < 0 ? 0 : v.rc);
        in.useImm = v.useImm;
        in.imm = v.imm;
        in.immSymbol = v.immSymbol;
        in.aux = v.aux;
        return in;
    };
    out.blocks.clear();
    lineMap.clear();
    for (int b : order) {
        const VBlock& vb = p.blocks[size_t(b)];
        size_t pieces = std::max<size_t>(1, (vb.body.size() + size_t(slots) - 1) / size_t(slots));
        for (size_t k = 0; k < pieces; ++k) {
            Block blk;
            blk.label = "b" + std::to_string(out.blocks.size());
            int index = int(out.blocks.size());
            size_t first = k * size_t(slots);
            blk.floatRegisters =
                first < vb.body.size() ? vb.body[first].floatRegistersBefore : vb.term.floatRegistersBefore;
            for (size_t i = first; i < std::min(vb.body.size(), (k + 1) * size_t(slots)); ++i) {
                blk.body.push_back(toInstruction(vb.body[i]));
                blk.bodyLocs.push_back(vb.body[i].loc);
                lineMap.push_back({index, int(blk.body.size() - 1), vb.body[i].loc.line, vb.body[i].ptxLine});
            }
            if (k + 1 < pieces) {
                blk.terminator.op = Opcode::Jmp;
                blk.terminator.setTargets(uint16_t(index + 1), 0);
                blk.terminatorLoc = blk.bodyLocs.back();
            } else {
                blk.terminator = toInstruction(vb.term);
                int t = vb.target >= 0 ? firstPiece[size_t(vb.target)] : 0;
                int e = vb.elseTarget >= 0 ? firstPiece[size_t(vb.elseTarget)] : 0;
                blk.terminator.setTargets(uint16_t(t), uint16_t(vb.term.op == Opcode::Br ? e : 0));
                blk.terminatorLoc = vb.term.loc;
                lineMap.push_back({index, int(blk.body.size()), vb.term.loc.line, vb.term.ptxLine});
            }
            out.blocks.push_back(std::move(blk));
        }
    }
}

}  // namespace qgpu::lowering
