#include "qgpu/ui/DivergenceTimeline.h"

#include <imgui.h>

#include <string>

namespace qgpu {

void DivergenceTimeline::setData(const std::vector<StepEvent>& history, int position, int warps, int lanes) {
    m_columns.clear();
    for (const auto& ev : history) m_columns.push_back({ev.warp, ev.maskBefore, ev.liveBefore, ev.block});
    m_position = position;
    m_warps = std::max(1, warps);
    m_lanes = lanes;
}

void DivergenceTimeline::draw() {
    ImGui::Text("steps %d / %d   warps %d   (green: active lane, orange: lane waiting on the other path)", m_position,
                int(m_columns.size()), m_warps);
    const float cell = 7.0f, rowGap = 4.0f, left = 60.0f;
    ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    float warpHeight = cell * float(m_lanes) + rowGap;
    for (int w = 0; w < m_warps; ++w)
        dl->AddText(ImVec2(origin.x, origin.y + float(w) * warpHeight), IM_COL32(200, 200, 200, 255),
                    ("warp " + std::to_string(w)).c_str());
    // Only the columns inside the visible part of the window are drawn (histories can be long).
    float clipLeft = ImGui::GetWindowPos().x, clipRight = clipLeft + ImGui::GetWindowWidth();
    for (size_t i = 0; i < m_columns.size(); ++i) {
        const Column& c = m_columns[i];
        float x = origin.x + left + float(i) * cell;
        if (x + cell < clipLeft || x > clipRight) continue;
        bool future = int(i) >= m_position;
        for (int l = 0; l < m_lanes; ++l) {
            float y = origin.y + float(c.warp) * warpHeight + float(l) * cell;
            ImU32 col = (c.mask & (1u << l))   ? IM_COL32(60, 200, 90, 255)
                        : (c.live & (1u << l)) ? IM_COL32(230, 140, 40, 255)
                                               : IM_COL32(60, 60, 70, 255);
            if (future) col = (col & 0x00FFFFFF) | 0x50000000;
            dl->AddRectFilled(ImVec2(x, y), ImVec2(x + cell - 1, y + cell - 1), col);
        }
        bool diverged = (c.live & ~c.mask) != 0;
        if (diverged)
            dl->AddRectFilled(ImVec2(x, origin.y + float(c.warp) * warpHeight - 3),
                              ImVec2(x + cell - 1, origin.y + float(c.warp) * warpHeight - 1),
                              IM_COL32(240, 150, 40, 255));
        if (ImGui::IsMouseHoveringRect(ImVec2(x, origin.y + float(c.warp) * warpHeight),
                                       ImVec2(x + cell, origin.y + float(c.warp + 1) * warpHeight)))
            ImGui::SetTooltip("step %d: warp %d ran block %d with lanes mask 0x%x", int(i), c.warp, c.block, c.mask);
    }
    float cursorX = origin.x + left + float(m_position) * cell;
    dl->AddLine(ImVec2(cursorX, origin.y), ImVec2(cursorX, origin.y + float(m_warps) * warpHeight),
                IM_COL32(255, 80, 80, 255), 2.0f);
    ImGui::Dummy(ImVec2(left + float(m_columns.size()) * cell + 10, float(m_warps) * warpHeight));
}

}  // namespace qgpu
