// Block order for the min-PC reconvergence rule (docs/isa.md): a loop's blocks contiguous and before every
// block its exits lead to, and every block after all of its forward predecessors. Loops are collapsed
// into single nodes, the resulting DAG is ordered, and each loop is expanded the same way, recursively.
#include <algorithm>
#include <functional>
#include <map>
#include <set>

#include "Passes.h"
#include "qgpu/core/Diagnostic.h"

namespace qgpu::lowering {
namespace {

// Immediate dominators of the blocks reached from the entry, the last block of `postorder` (Cooper, Harvey
// and Kennedy's iteration over reverse postorder; linear in practice, where dominator sets are quadratic);
// -1 for blocks not reached.
std::vector<int> immediateDominators(const std::vector<std::vector<int>>& preds, const std::vector<int>& postorder) {
    std::vector<int> number(preds.size(), -1), idom(preds.size(), -1);
    for (size_t i = 0; i < postorder.size(); ++i) number[size_t(postorder[i])] = int(i);
    int entry = postorder.back();
    idom[size_t(entry)] = entry;
    auto intersect = [&](int a, int b) {
        while (a != b) {
            while (number[size_t(a)] < number[size_t(b)]) a = idom[size_t(a)];
            while (number[size_t(b)] < number[size_t(a)]) b = idom[size_t(b)];
        }
        return a;
    };
    for (bool changed = true; changed;) {
        changed = false;
        for (auto it = postorder.rbegin() + 1; it != postorder.rend(); ++it) {
            int meet = -1;
            for (int q : preds[size_t(*it)])
                if (idom[size_t(q)] != -1) meet = meet == -1 ? q : intersect(q, meet);
            if (idom[size_t(*it)] != meet) idom[size_t(*it)] = meet, changed = true;
        }
    }
    return idom;
}

// Whether block `d` dominates block `b` (both reached from the entry).
bool dominates(const std::vector<int>& idom, int d, int b) {
    for (;; b = idom[size_t(b)]) {
        if (b == d) return true;
        if (idom[size_t(b)] == b || idom[size_t(b)] < 0) return false;
    }
}

struct Loops {
    std::map<int, std::set<int>> byHeader;  // natural loops, all back edges to one header merged
    std::set<std::pair<int, int>> backEdges;
};

Loops findLoops(const VProgram& p) {
    size_t n = p.blocks.size();
    std::vector<std::vector<int>> preds(n);
    for (size_t b = 0; b < n; ++b)
        for (int s : p.blocks[b].successors()) preds[size_t(s)].push_back(int(b));
    Loops loops;
    std::vector<int> state(n, 0);  // 0 new, 1 on the DFS stack, 2 done
    std::vector<int> postorder;
    std::function<void(int)> dfs = [&](int b) {
        state[size_t(b)] = 1;
        for (int s : p.blocks[size_t(b)].successors()) {
            if (state[size_t(s)] == 1)
                loops.backEdges.insert({b, s});
            else if (state[size_t(s)] == 0)
                dfs(s);
        }
        state[size_t(b)] = 2;
        postorder.push_back(b);
    };
    dfs(0);
    // Reducible control flow: each back edge's target dominates its source.
    std::vector<int> idom = immediateDominators(preds, postorder);
    for (auto [tail, head] : loops.backEdges)
        if (!dominates(idom, head, tail))
            throw DiagnosticError(Diagnostic{"", 0, 0,
                                             "the kernel's control flow is irreducible (a loop with two entries); "
                                             "the machine's reconvergence rule cannot run it"});
    for (auto [tail, head] : loops.backEdges) {
        std::set<int>& body = loops.byHeader[head];
        body.insert(head);
        std::vector<int> work{tail};
        while (!work.empty()) {
            int b = work.back();
            work.pop_back();
            if (!body.insert(b).second) continue;
            for (int q : preds[size_t(b)]) work.push_back(q);
        }
    }
    return loops;
}

class Orderer {
public:
    Orderer(const VProgram& p) : m_p(p), m_loops(findLoops(p)) {}

    std::vector<int> run() {
        std::set<int> all;
        for (size_t b = 0; b < m_p.blocks.size(); ++b) all.insert(int(b));
        order(all, 0, -1);
        return m_out;
    }

private:
    // Orders `region` starting at `entry`; `header` is the region's own loop header (-1 for the whole
    // program), whose back edges are ignored.
    void order(const std::set<int>& region, int entry, int header) {
        // The outermost loops inside the region stand for all of their blocks.
        std::map<int, int> rep;
        for (int b : region) rep[b] = b;
        for (const auto& [h, body] : m_loops.byHeader) {
            if (h == header || !region.count(h)) continue;
            for (int b : body) {
                const std::set<int>* current = rep[b] == b ? nullptr : &m_loops.byHeader.at(rep[b]);
                if (!current || body.size() > current->size()) rep[b] = h;
            }
        }
        std::map<int, std::vector<int>> dag;
        for (int u : region)
            for (int v : m_p.blocks[size_t(u)].successors()) {
                if (!region.count(v) || v == header || rep[u] == rep[v]) continue;
                dag[rep[u]].push_back(rep[v]);
            }
        std::vector<int> post;
        std::map<int, int> state;
        std::function<void(int)> visit = [&](int r) {
            state[r] = 1;
            for (int s : dag[r]) {
                if (state[s] == 1)
                    throw DiagnosticError(Diagnostic{"", 0, 0,
                                                     "the kernel's control flow is irreducible (a loop with two "
                                                     "entries); the machine's reconvergence rule cannot run it"});
                if (state[s] == 0) visit(s);
            }
            state[r] = 2;
            post.push_back(r);
        };
        visit(rep[entry]);
        std::vector<int> topological = exitsEarly({post.rbegin(), post.rend()}, dag);
        for (auto it = topological.begin(); it != topological.end(); ++it) {
            if (*it != header && m_loops.byHeader.count(*it))
                order(m_loops.byHeader.at(*it), *it, *it);  // an inner loop, laid out whole, in place
            else
                m_out.push_back(*it);
        }
    }

    // Moves each block that ends in `exit` (a sink of the DAG, never a loop) to right after its last
    // predecessor: lanes that return run before the others go on, and so count as arrived at a barrier.
    std::vector<int> exitsEarly(std::vector<int> order, std::map<int, std::vector<int>>& dag) const {
        std::vector<int> sinks;
        for (int r : order)
            if (!m_loops.byHeader.count(r) && m_p.blocks[size_t(r)].term.op == Opcode::Exit) sinks.push_back(r);
        for (int sink : sinks) {
            order.erase(std::find(order.begin(), order.end(), sink));
            auto after = order.begin();  // just past the last predecessor
            for (auto it = order.begin(); it != order.end(); ++it) {
                const auto& succ = dag[*it];
                if (std::find(succ.begin(), succ.end(), sink) != succ.end()) after = it + 1;
            }
            order.insert(after, sink);
        }
        return order;
    }

    const VProgram& m_p;
    Loops m_loops;
    std::vector<int> m_out;
};

}  // namespace

std::vector<int> reconvergenceOrder(const VProgram& p) { return Orderer(p).run(); }

}  // namespace qgpu::lowering
