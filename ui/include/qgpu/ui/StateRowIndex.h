// Every row of the model's recurrent state with its meaning ("warp 0, lane 2, r1", "global word 7"), read once
// from a session: where a register or a word lives in the model, and which layer's mixer writes it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "qgpu/core/Session.h"

namespace qgpu {

class StateRowIndex {
public:
    struct Place {
        int layer = 0, head = 0, row = 0;
        std::string memory, meaning;
    };
    // Reads the rows' meanings (the caller holds the session still); nothing for a backend without a state.
    void read(const Session& session);
    bool empty() const { return m_meanings.empty(); }
    void clear() { m_meanings.clear(); }
    // The rows whose meaning `match` accepts, in layer and head order, at most `limit`.
    std::vector<Place> find(const std::function<bool(const std::string& meaning)>& match, size_t limit = 50) const;

private:
    StateLayout m_layout;
    std::vector<std::vector<std::string>> m_meanings;  // per head (layer * heads + head), per row
};

}  // namespace qgpu
