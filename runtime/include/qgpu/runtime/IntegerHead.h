// An LM head whose entries are small integers (the compiled GPU's code rows are +-1 and 0), for the sparse
// engine. It computes every row's logit as a vectorised pass over the bytes, or only the argmax: a search
// down a trie of the rows, dim by dim, that leaves a subtree once its best possible logit falls below the
// best leaf found. Both sum each logit in dim order from +0, so they agree bit for bit with each other and
// with a float head holding the same values.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace qgpu {

class IntegerHead {
public:
    // `rows` as float vectors over the head's dims; nullopt unless every entry is an integer in [-127, 127].
    static std::optional<IntegerHead> fromRows(const std::vector<std::vector<float>>& rows, size_t dims);

    size_t rows() const { return m_rows; }
    size_t dims() const { return m_dims; }
    // Every row's logit, sum_i head[row][i] * y[i].
    std::vector<float> logits(const std::vector<float>& y) const;
    // The lowest row among those with the largest logit: the argmax of logits(y), found without them.
    size_t argmax(const std::vector<float>& y) const;
    // Trie nodes the last argmax on this thread visited (0 when it fell back to the full pass).
    static size_t lastVisits();

private:
    struct Node {
        int32_t firstChild = 0;  // children are contiguous; a leaf's is its row
        int32_t children = 0;    // 0 for a leaf
        int8_t weight = 0;       // the entry on the edge into this node
    };
    struct Search;
    IntegerHead(size_t rows, size_t dims) : m_rows(rows), m_dims(dims) {}
    void buildTrie(const std::vector<int8_t>& packed);  // the rows, row-major

    size_t m_rows, m_dims;
    std::vector<int8_t> m_columns;  // dim-major: [dims, rows]
    std::vector<int8_t> m_largest;  // per dim: the largest |entry|
    std::vector<Node> m_nodes;      // m_nodes[0] is the root
};

}  // namespace qgpu
