// The block order behind the min-PC reconvergence rule, on hand-made control-flow graphs (white box).
#include <gtest/gtest.h>

#include <map>

#include "Passes.h"
#include "qgpu/core/Diagnostic.h"

using namespace qgpu;
using namespace qgpu::lowering;

namespace {

// edges[b] = {} (exit), {t} (jump) or {t, e} (branch)
VProgram cfg(const std::vector<std::vector<int>>& edges) {
    VProgram p;
    for (const auto& e : edges) {
        VBlock b;
        b.terminated = true;
        b.term.op = e.empty() ? Opcode::Exit : e.size() == 1 ? Opcode::Jmp : Opcode::Br;
        if (!e.empty()) b.target = e[0];
        if (e.size() == 2) b.elseTarget = e[1];
        p.blocks.push_back(b);
    }
    return p;
}

// Every edge goes forward except back edges to a loop header, and each loop's blocks come before the
// blocks outside it that its exits reach.
void expectMinPcOrder(const VProgram& p, const std::vector<int>& order, const std::map<int, std::vector<int>>& loops) {
    ASSERT_EQ(order.size(), p.blocks.size());
    ASSERT_EQ(order[0], 0);
    std::map<int, int> pos;
    for (size_t i = 0; i < order.size(); ++i) pos[order[i]] = int(i);
    for (const auto& [header, body] : loops) {
        int last = 0;
        for (int b : body) last = std::max(last, pos[b]);
        for (int b : body)
            for (int s : p.blocks[size_t(b)].successors())
                if (std::find(body.begin(), body.end(), s) == body.end()) {
                    EXPECT_GT(pos[s], last) << "exit " << b << " -> " << s << " of the loop at " << header;
                }
    }
    for (size_t b = 0; b < p.blocks.size(); ++b)
        for (int s : p.blocks[b].successors())
            if (!loops.count(s) || pos[s] > pos[int(b)]) {
                EXPECT_LT(pos[int(b)], pos[s]) << b << " -> " << s;
            }
}

}  // namespace

TEST(BlockOrder, ExitReachedFromASiblingPathComesAfterTheWholeLoop) {
    // 0 -> H(1); H: br A(2), B(3); A -> T(4); T -> H; B: br E(5), T
    VProgram p = cfg({{1}, {2, 3}, {4}, {5, 4}, {1}, {}});
    expectMinPcOrder(p, reconvergenceOrder(p), {{1, {1, 2, 3, 4}}});
}

TEST(BlockOrder, NestedLoopsWithABreakOutOfBoth) {
    // 0 -> 1 (outer header) -> 2 (inner header); 2: br 3, 4; 3: br 2 (inner back), 6 (break out of both);
    // 4 -> 5; 5: br 1 (outer back), 7; 6 -> 7; 7 exit
    VProgram p = cfg({{1}, {2}, {3, 4}, {2, 6}, {5}, {1, 7}, {7}, {}});
    expectMinPcOrder(p, reconvergenceOrder(p), {{1, {1, 2, 3, 4, 5}}, {2, {2, 3}}});
}

TEST(BlockOrder, LoopAtTheEntry) {
    VProgram p = cfg({{1, 2}, {0}, {}});  // 0: br 1, 2; 1 -> 0
    expectMinPcOrder(p, reconvergenceOrder(p), {{0, {0, 1}}});
}

TEST(BlockOrder, IrreducibleControlFlowIsReported) {
    VProgram p = cfg({{1, 2}, {2}, {1, 3}, {}});  // 1 and 2 form a loop entered at both
    EXPECT_THROW(reconvergenceOrder(p), DiagnosticError);
}
