// ImGui viewer: every lane of every warp (rows, grouped by warp) at every recorded step (columns), drawn by
// what the lane did: ran the step, waited on the other path of a divergent branch, waited at a barrier, had
// exited, or sat while another warp ran. Axes labelled, zoom (Ctrl+wheel or the slider) and scrolling both
// ways; a click moves the debugger to the end of that step.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "qgpu/core/MachineState.h"
#include "qgpu/ui/ImGuiHost.h"

namespace qgpu {

class DivergenceTimeline : public ImGuiViewer {
public:
    enum class LaneState : uint8_t { Idle, Active, Waiting, Barrier, Exited, Absent };

    const char* title() const override { return "Warp divergence"; }
    void draw() override;
    // Copies what it needs; called on the GUI thread when the debugger moves. `now` is the machine at
    // `position`: the lanes' statuses before the first step are worked back from it.
    void setData(const std::vector<StepEvent>& history, int position, const MachineState& now);
    void clear();
    // Each block's first source line (0: none), for the step tooltips; set when a program is built.
    void setLines(std::vector<int> lineOfBlock) { m_lineOfBlock = std::move(lineOfBlock); }
    LaneState laneState(int step, int thread) const;
    int steps() const { return int(m_steps.size()); }
    // Called with the step a click landed on.
    std::function<void(int step)> onStepClicked;
    // Where a step's column and a thread's row are drawn, in the host widget's coordinates (tests click
    // there); valid after a frame was drawn.
    float columnCentre(int step) const;
    float rowCentre(int thread) const;

private:
    struct Step {
        int warp = 0, block = 0;
        uint8_t mask = 0;
    };
    void append(const StepEvent& ev);
    void drawLegend();
    void drawGrid();
    std::string lineLabel(int block) const;  // " (line 8)", or "" when the block has no line
    std::vector<int> m_lineOfBlock;
    std::vector<Step> m_steps;
    std::vector<LaneState> m_states;        // steps x threads
    std::vector<LaneStatus> m_statusAfter;  // each lane's status after the last appended step
    int m_position = 0, m_threads = 0, m_lanes = 4;
    float m_cell = 8.0f;
    float m_gridX = 0, m_gridY = 0, m_scrollX = 0, m_scrollY = 0;  // the last frame's grid origin and scroll
};

}  // namespace qgpu
