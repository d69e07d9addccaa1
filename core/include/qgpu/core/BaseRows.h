// A matrix whose rows are one base row with a few entries changed each: the compiled GPU's token
// embeddings (a token sets a handful of bits of the base), kept as the changes instead of tens of thousands
// of full copies.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

namespace qgpu {

class BaseRows {
public:
    using Change = std::pair<int, float>;  // (column, value)

    BaseRows() = default;
    explicit BaseRows(std::vector<float> base) : m_base(std::move(base)) {}

    // Appends a row given as its changes to the base (columns ascending, each once).
    void add(std::vector<Change> changes);
    // Appends a full row (the first row of an empty matrix becomes the base).
    void addRow(const std::vector<float>& row);

    size_t size() const { return m_changes.size(); }
    size_t width() const { return m_base.size(); }
    const std::vector<float>& base() const { return m_base; }
    // Row r's changes, columns ascending; a change may repeat the base's value.
    const std::vector<Change>& changes(size_t r) const { return m_changes[r]; }
    std::vector<float> row(size_t r) const;
    void writeRow(size_t r, float* out) const;  // width() floats
    std::vector<std::vector<float>> dense() const;

private:
    std::vector<float> m_base;
    std::vector<std::vector<Change>> m_changes;
};

}  // namespace qgpu
