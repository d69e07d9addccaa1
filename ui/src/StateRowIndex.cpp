#include "qgpu/ui/StateRowIndex.h"

namespace qgpu {

void StateRowIndex::read(const Session& session) {
    m_layout = session.stateLayout();
    m_meanings.clear();
    if (m_layout.layers == 0) return;
    int rows = 0;  // every head has the same key dim
    for (size_t i = 0; i < m_layout.memories.size() && rows == 0; ++i)
        if (!m_layout.memories[i].empty())
            rows = session.stateHead(int(i) / m_layout.heads, int(i) % m_layout.heads).rows;
    m_meanings.resize(m_layout.memories.size());
    for (size_t i = 0; i < m_layout.memories.size(); ++i)
        for (int r = 0; !m_layout.memories[i].empty() && r < rows; ++r)
            m_meanings[i].push_back(session.rowMeaning(int(i) / m_layout.heads, int(i) % m_layout.heads, r));
}

std::vector<StateRowIndex::Place> StateRowIndex::find(const std::function<bool(const std::string&)>& match,
                                                      size_t limit) const {
    std::vector<Place> out;
    for (size_t i = 0; i < m_meanings.size() && out.size() < limit; ++i)
        for (size_t r = 0; r < m_meanings[i].size() && out.size() < limit; ++r)
            if (match(m_meanings[i][r]))
                out.push_back(
                    {int(i) / m_layout.heads, int(i) % m_layout.heads, int(r), m_layout.memories[i], m_meanings[i][r]});
    return out;
}

}  // namespace qgpu
