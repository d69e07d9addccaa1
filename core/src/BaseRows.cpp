#include "qgpu/core/BaseRows.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace qgpu {

void BaseRows::add(std::vector<Change> changes) {
    for (size_t i = 0; i < changes.size(); ++i)
        if (changes[i].first < 0 || size_t(changes[i].first) >= m_base.size() ||
            (i > 0 && changes[i].first <= changes[i - 1].first))
            throw std::invalid_argument("a row's changes must name columns of the base, ascending, each once");
    m_changes.push_back(std::move(changes));
}

void BaseRows::addRow(const std::vector<float>& row) {
    if (m_changes.empty() && m_base.empty()) m_base = row;
    if (row.size() != m_base.size()) throw std::invalid_argument("a row is not as wide as the base");
    std::vector<Change> changes;
    for (size_t c = 0; c < row.size(); ++c)
        if (row[c] != m_base[c] || std::signbit(row[c]) != std::signbit(m_base[c])) changes.push_back({int(c), row[c]});
    m_changes.push_back(std::move(changes));
}

void BaseRows::writeRow(size_t r, float* out) const {
    std::copy(m_base.begin(), m_base.end(), out);
    for (const auto& [column, value] : m_changes.at(r)) out[column] = value;
}

std::vector<float> BaseRows::row(size_t r) const {
    std::vector<float> out(m_base.size());
    writeRow(r, out.data());
    return out;
}

std::vector<std::vector<float>> BaseRows::dense() const {
    std::vector<std::vector<float>> out;
    out.reserve(size());
    for (size_t r = 0; r < size(); ++r) out.push_back(row(r));
    return out;
}

}  // namespace qgpu
