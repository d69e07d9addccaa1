// ImGui viewer: the active mask of every warp at every recorded step, divergence marked.
#pragma once

#include <vector>

#include "qgpu/core/MachineState.h"
#include "qgpu/ui/ImGuiHost.h"

namespace qgpu {

class DivergenceTimeline : public ImGuiViewer {
public:
    const char* title() const override { return "Warp divergence"; }
    void draw() override;
    // Copies what it needs; called on the GUI thread when the debugger moves.
    void setData(const std::vector<StepEvent>& history, int position, int warps, int lanes);

private:
    struct Column {
        int warp;
        uint8_t mask;
        uint8_t live;  // lanes live before the step: live but not active = diverged
        int block;
    };
    std::vector<Column> m_columns;
    int m_position = 0, m_warps = 1, m_lanes = 4;
};

}  // namespace qgpu
