#include "qgpu/runtime/IntegerHead.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <numeric>

namespace qgpu {

namespace {
thread_local size_t t_lastVisits = 0;

size_t argmaxOf(const std::vector<float>& logits) {
    return size_t(std::max_element(logits.begin(), logits.end()) - logits.begin());
}
}  // namespace

std::optional<IntegerHead> IntegerHead::fromRows(const std::vector<std::vector<float>>& rows, size_t dims) {
    std::vector<std::vector<int8_t>> small;
    for (const auto& row : rows) {
        std::vector<int8_t>& out = small.emplace_back();
        for (float w : row) {
            if (w != std::nearbyint(w) || std::abs(w) > 127) return std::nullopt;
            out.push_back(int8_t(w));  // -0 becomes +0: the same products in a sum that starts at +0
        }
    }
    IntegerHead head(rows.size(), dims);
    head.m_columns.resize(dims * rows.size());
    head.m_largest.assign(dims, 0);
    for (size_t r = 0; r < small.size(); ++r)
        for (size_t i = 0; i < dims; ++i) {
            head.m_columns[i * rows.size() + r] = small[r][i];
            head.m_largest[i] = std::max<int8_t>(head.m_largest[i], int8_t(std::abs(small[r][i])));
        }
    head.buildTrie(small);
    return head;
}

void IntegerHead::buildTrie(const std::vector<std::vector<int8_t>>& rows) {
    // Rows in lexicographic order (equal rows by index): every subtree is a contiguous run, and a leaf's
    // first row is its lowest.
    std::vector<size_t> order(rows.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return rows[a] < rows[b]; });
    m_nodes.assign(1, Node{});
    if (!rows.empty()) addChildren(0, rows, order, 0, order.size(), 0);
}

// Gives `node`, over order[begin, end) at `depth`, its children (one per run of a value of that dim) and
// their subtrees; at depth == dims the node is a leaf, and its row the run's first.
void IntegerHead::addChildren(size_t node, const std::vector<std::vector<int8_t>>& rows,
                              const std::vector<size_t>& order, size_t begin, size_t end, size_t depth) {
    if (depth == m_dims) {
        m_nodes[node].firstChild = int32_t(order[begin]);
        return;
    }
    std::vector<std::pair<size_t, size_t>> runs;
    for (size_t b = begin; b < end;) {
        size_t e = b;
        while (e < end && rows[order[e]][depth] == rows[order[b]][depth]) ++e;
        runs.emplace_back(b, e);
        b = e;
    }
    const size_t first = m_nodes.size();
    m_nodes.resize(first + runs.size());
    m_nodes[node].firstChild = int32_t(first);
    m_nodes[node].children = int32_t(runs.size());
    for (size_t k = 0; k < runs.size(); ++k) {
        const auto [b, e] = runs[k];
        m_nodes[first + k].weight = rows[order[b]][depth];
        addChildren(first + k, rows, order, b, e, depth + 1);
    }
}

std::vector<float> IntegerHead::logits(const std::vector<float>& y) const {
    std::vector<float> out(m_rows, 0.f);
    float* __restrict sums = out.data();
    const int8_t* __restrict column = m_columns.data();
    for (size_t i = 0; i < m_dims; ++i, column += m_rows) {
        const float weight = y[i];
        for (size_t r = 0; r < m_rows; ++r) sums[r] += float(column[r]) * weight;
    }
    return out;
}

// A depth-first search that takes the most promising child first and leaves a subtree when even the
// largest entries on the dims still to come could not lift it to the best leaf found (within a slack above
// the rounding any float sum of these terms can carry).
struct IntegerHead::Search {
    const IntegerHead& head;
    const std::vector<float>& y;
    std::vector<float> remaining;  // per depth: sum over the dims from there of largest * |y|
    float slack = 0;
    float best = -std::numeric_limits<float>::infinity();
    size_t bestRow = std::numeric_limits<size_t>::max();
    size_t visits = 0, limit = 0;
    std::vector<std::vector<std::pair<float, int32_t>>> scratch;  // per depth: the children in visiting order

    Search(const IntegerHead& h, const std::vector<float>& values) : head(h), y(values) {
        remaining.assign(h.m_dims + 1, 0.f);
        for (size_t i = h.m_dims; i-- > 0;) remaining[i] = remaining[i + 1] + float(h.m_largest[i]) * std::abs(y[i]);
        slack = remaining[0] * float(4 * h.m_dims + 16) * FLT_EPSILON;
        limit = h.m_rows / 8 + 1024;
        scratch.resize(h.m_dims);
    }
    // False when the search ran past its limit (the full pass is then cheaper).
    bool visit(const Node& node, size_t depth, float sum) {
        if (++visits > limit) return false;
        if (depth == head.m_dims) {
            const size_t row = size_t(node.firstChild);
            if (sum > best || (sum == best && row < bestRow)) best = sum, bestRow = row;
            return true;
        }
        if (sum + remaining[depth] + slack < best) return true;
        auto& children = scratch[depth];
        children.clear();
        for (int32_t c = node.firstChild; c < node.firstChild + node.children; ++c)
            children.emplace_back(sum + float(head.m_nodes[size_t(c)].weight) * y[depth], c);
        std::stable_sort(children.begin(), children.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        for (const auto& [childSum, child] : children)  // deeper calls use only deeper scratch vectors
            if (!visit(head.m_nodes[size_t(child)], depth + 1, childSum)) return false;
        return true;
    }
};

size_t IntegerHead::argmax(const std::vector<float>& y) const {
    t_lastVisits = 0;
    if (m_rows == 0) return 0;
    if (!std::all_of(y.begin(), y.end(), [](float v) { return std::isfinite(v); })) return argmaxOf(logits(y));
    Search search(*this, y);
    if (!search.visit(m_nodes[0], 0, 0.f)) return argmaxOf(logits(y));
    t_lastVisits = search.visits;
    return search.bestRow;
}

size_t IntegerHead::lastVisits() { return t_lastVisits; }

}  // namespace qgpu
