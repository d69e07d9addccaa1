#include "qgpu/runtime/IntegerHead.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>
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
    IntegerHead head(rows.size(), dims);
    std::vector<int8_t> packed(rows.size() * dims);  // row-major
    head.m_columns.resize(dims * rows.size());
    head.m_largest.assign(dims, 0);
    for (size_t r = 0; r < rows.size(); ++r)
        for (size_t i = 0; i < dims; ++i) {
            const float w = rows[r][i];
            if (w != std::nearbyint(w) || std::abs(w) > 127) return std::nullopt;
            const auto entry = int8_t(w);  // -0 becomes +0: the same products in a sum that starts at +0
            packed[r * dims + i] = entry;
            head.m_columns[i * rows.size() + r] = entry;
            head.m_largest[i] = std::max<int8_t>(head.m_largest[i], int8_t(std::abs(entry)));
        }
    head.buildTrie(packed);
    return head;
}

// Level by level over the rows in lexicographic order (equal rows by index), where every subtree is a
// contiguous run: a node's children are the runs of one value of the next dim, appended in order, so
// each node's children sit together. A leaf's row is its run's first, the lowest.
void IntegerHead::buildTrie(const std::vector<int8_t>& packed) {
    const int8_t* base = packed.data();
    const size_t dims = m_dims;
    std::vector<uint32_t> order(m_rows);
    std::iota(order.begin(), order.end(), 0u);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        int c = dims ? std::memcmp(base + a * dims, base + b * dims, dims) : 0;
        return c != 0 ? c < 0 : a < b;
    });
    m_nodes.assign(1, Node{});
    if (m_rows == 0) return;
    struct Span {
        size_t node, begin, end;
    };
    std::vector<Span> level = {{0, 0, m_rows}}, next;
    for (size_t depth = 0; depth < dims; ++depth, level.swap(next)) {
        next.clear();
        for (const Span& span : level) {
            m_nodes[span.node].firstChild = int32_t(m_nodes.size());
            for (size_t b = span.begin; b < span.end;) {
                const int8_t value = base[order[b] * dims + depth];
                size_t e = b + 1;
                while (e < span.end && base[order[e] * dims + depth] == value) ++e;
                next.push_back({m_nodes.size(), b, e});
                m_nodes.push_back(Node{0, 0, value});
                b = e;
            }
            m_nodes[span.node].children = int32_t(m_nodes.size()) - m_nodes[span.node].firstChild;
        }
    }
    for (const Span& leaf : level) m_nodes[leaf.node].firstChild = int32_t(order[leaf.begin]);
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
    std::vector<std::pair<float, int32_t>> pending;  // children in visiting order, each depth's above its parent's

    Search(const IntegerHead& h, const std::vector<float>& values) : head(h), y(values) {
        remaining.assign(h.m_dims + 1, 0.f);
        for (size_t i = h.m_dims; i-- > 0;) remaining[i] = remaining[i + 1] + float(h.m_largest[i]) * std::abs(y[i]);
        slack = remaining[0] * float(4 * h.m_dims + 16) * FLT_EPSILON;
        limit = h.m_rows / 8 + 1024;
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
        const size_t from = pending.size();
        for (int32_t c = node.firstChild; c < node.firstChild + node.children; ++c)
            pending.emplace_back(sum + float(head.m_nodes[size_t(c)].weight) * y[depth], c);
        std::stable_sort(pending.begin() + long(from), pending.end(),
                         [](const auto& a, const auto& b) { return a.first > b.first; });
        for (size_t k = from; k < from + size_t(node.children); ++k) {  // by index: deeper calls push above
            const auto [childSum, child] = pending[k];
            if (!visit(head.m_nodes[size_t(child)], depth + 1, childSum)) return false;
        }
        pending.resize(from);
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
