#include "qgpu/ui/DivergenceTimeline.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

#include "qgpu/core/Trace.h"

namespace qgpu {

namespace {

constexpr float kLeft = 64.0f;  // the lane labels' strip
constexpr float kTop = 18.0f;   // the step numbers' strip
constexpr float kWarpGap = 4.0f;

struct Look {
    DivergenceTimeline::LaneState state;
    ImU32 colour;
    const char* name;
};
const Look kLooks[] = {
    {DivergenceTimeline::LaneState::Active, IM_COL32(60, 200, 90, 255), "ran the step"},
    {DivergenceTimeline::LaneState::Waiting, IM_COL32(235, 140, 40, 255), "waiting on the other path"},
    {DivergenceTimeline::LaneState::Barrier, IM_COL32(80, 140, 240, 255), "at a barrier"},
    {DivergenceTimeline::LaneState::Exited, IM_COL32(110, 110, 120, 255), "exited"},
    {DivergenceTimeline::LaneState::Idle, IM_COL32(45, 55, 50, 255), "another warp ran"},
};

ImU32 colourOf(DivergenceTimeline::LaneState s) {
    for (const Look& l : kLooks)
        if (l.state == s) return l.colour;
    return IM_COL32(25, 25, 28, 255);  // absent
}

const char* nameOf(DivergenceTimeline::LaneState s) {
    for (const Look& l : kLooks)
        if (l.state == s) return l.name;
    return "absent";
}

}  // namespace

void DivergenceTimeline::clear() {
    m_steps.clear();
    m_states.clear();
    m_statusAfter.clear();
    m_position = 0;
}

void DivergenceTimeline::setData(const std::vector<StepEvent>& history, int position, const MachineState& now) {
    if (history.size() < m_steps.size() || int(now.threads.size()) != m_threads) clear();
    m_threads = int(now.threads.size());
    m_lanes = std::max(1, now.lanesPerWarp);
    if (m_steps.empty()) {  // the statuses before the first step: `now`'s, with the steps taken undone
        m_statusAfter.resize(size_t(m_threads));
        for (int t = 0; t < m_threads; ++t) m_statusAfter[size_t(t)] = now.threads[size_t(t)].status;
        for (int i = std::min(position, int(history.size())) - 1; i >= 0; --i)
            for (const LaneChange& c : history[size_t(i)].laneChanges) m_statusAfter[size_t(c.thread)] = c.statusBefore;
    }
    for (size_t i = m_steps.size(); i < history.size(); ++i) append(history[i]);
    m_position = position;
}

void DivergenceTimeline::append(const StepEvent& ev) {
    m_steps.push_back({ev.warp, ev.block, ev.maskBefore});
    for (int t = 0; t < m_threads; ++t) {
        int warp = t / m_lanes, lane = t % m_lanes;
        LaneStatus s = m_statusAfter[size_t(t)];
        LaneState state = s == LaneStatus::Absent      ? LaneState::Absent
                          : s == LaneStatus::Exited    ? LaneState::Exited
                          : s == LaneStatus::AtBarrier ? LaneState::Barrier
                                                       : LaneState::Idle;
        if (warp == ev.warp && (ev.maskBefore >> lane & 1))
            state = LaneState::Active;
        else if (warp == ev.warp && (ev.liveBefore >> lane & 1))
            state = LaneState::Waiting;
        m_states.push_back(state);
    }
    for (const LaneChange& c : ev.laneChanges) m_statusAfter[size_t(c.thread)] = c.statusAfter;
}

DivergenceTimeline::LaneState DivergenceTimeline::laneState(int step, int thread) const {
    if (step < 0 || step >= steps() || thread < 0 || thread >= m_threads) return LaneState::Absent;
    return m_states[size_t(step) * size_t(m_threads) + size_t(thread)];
}

float DivergenceTimeline::columnCentre(int step) const { return m_gridX + kLeft + (float(step) + 0.5f) * m_cell; }

float DivergenceTimeline::rowCentre(int thread) const {
    int warp = thread / m_lanes;
    return m_gridY + kTop + float(warp) * kWarpGap + (float(thread) + 0.5f) * m_cell;
}

std::string DivergenceTimeline::lineLabel(int block) const {
    int line = block >= 0 && block < int(m_lineOfBlock.size()) ? m_lineOfBlock[size_t(block)] : 0;
    return line > 0 ? " (line " + std::to_string(line) + ")" : std::string();
}

void DivergenceTimeline::draw() {
    drawLegend();
    drawGrid();
}

void DivergenceTimeline::drawLegend() {
    if (m_position == 0)
        ImGui::Text("at the start (%d steps recorded)", steps());
    else
        ImGui::Text("after step %d (%d steps recorded)", m_position - 1, steps());
    for (const Look& l : kLooks) {
        float h = ImGui::GetTextLineHeight();
        ImGui::SameLine();
        if (ImGui::GetContentRegionAvail().x < h + ImGui::CalcTextSize(l.name).x + 16) ImGui::NewLine();  // wrap
        ImVec2 p = ImGui::GetCursorScreenPos();
        ImGui::GetWindowDrawList()->AddRectFilled(p, ImVec2(p.x + h, p.y + h), l.colour);
        ImGui::Dummy(ImVec2(h, h));
        ImGui::SameLine();
        ImGui::TextUnformatted(l.name);
    }
    ImGui::SetNextItemWidth(120);
    ImGui::SliderFloat("zoom (Ctrl+wheel)", &m_cell, 2.0f, 24.0f, "%.0f px");
    ImGui::SameLine();
    ImGui::TextDisabled("masks read lane 0 first; a click goes to the end of that step");
}

void DivergenceTimeline::drawGrid() {
    ImGui::BeginChild("grid", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    zoomByCtrlWheel(m_cell, 2.0f, 24.0f);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec2 origin = ImGui::GetCursorScreenPos(), win = ImGui::GetWindowPos();
    float winW = ImGui::GetWindowWidth(), winH = ImGui::GetWindowHeight();
    m_gridX = origin.x;
    m_gridY = origin.y;
    auto rowY = [&](int t) { return origin.y + kTop + float(t / m_lanes) * kWarpGap + float(t) * m_cell; };
    // Only the visible columns are drawn (histories run to thousands of steps).
    int first = std::max(0, int((win.x - origin.x - kLeft) / m_cell));
    int last = std::min(steps(), int((win.x + winW - origin.x - kLeft) / m_cell) + 1);
    for (int i = first; i < last; ++i) {
        float x = origin.x + kLeft + float(i) * m_cell;
        bool ahead = i >= m_position;
        for (int t = 0; t < m_threads; ++t) {
            float y = rowY(t);
            if (y + m_cell < win.y || y > win.y + winH) continue;
            ImU32 col = colourOf(laneState(i, t));
            if (ahead) col = (col & 0x00FFFFFF) | 0x60000000;
            dl->AddRectFilled(ImVec2(x, y), ImVec2(x + std::max(1.0f, m_cell - 1), y + m_cell - 1), col);
        }
    }
    float cursorX = origin.x + kLeft + float(m_position) * m_cell;
    dl->AddLine(ImVec2(cursorX, origin.y + kTop), ImVec2(cursorX, rowY(m_threads)), IM_COL32(255, 80, 80, 255), 2.0f);

    // Axes that stay in view while the grid scrolls: step numbers along the top, lanes down the left.
    ImU32 axisBg = IM_COL32(20, 20, 24, 255), text = IM_COL32(200, 200, 200, 255);
    dl->AddRectFilled(ImVec2(win.x, origin.y), ImVec2(win.x + winW, origin.y + kTop), axisBg);
    int every = std::max(1, int(std::ceil(48.0f / m_cell / 5.0f)) * 5);
    for (int i = (first / every) * every; i < last; i += every) {
        float x = origin.x + kLeft + float(i) * m_cell;
        dl->AddLine(ImVec2(x, origin.y + kTop - 4), ImVec2(x, origin.y + kTop), text);
        dl->AddText(ImVec2(x + 2, origin.y + 1), text, std::to_string(i).c_str());
    }
    dl->AddRectFilled(ImVec2(win.x, origin.y), ImVec2(win.x + kLeft - 2, rowY(m_threads)), axisBg);
    dl->AddText(ImVec2(win.x + 2, origin.y + 1), text, "step");
    for (int t = 0; t < m_threads; ++t) {
        bool label = m_cell >= ImGui::GetTextLineHeight() - 2 || t % m_lanes == 0;
        if (!label) continue;
        std::string s =
            t % m_lanes == 0 ? "w" + std::to_string(t / m_lanes) + " l0" : "   l" + std::to_string(t % m_lanes);
        dl->AddText(ImVec2(win.x + 2, rowY(t) + m_cell / 2 - ImGui::GetTextLineHeight() / 2), text, s.c_str());
    }

    // The hovered cell explained; a click goes to the end of its step.
    ImVec2 m = ImGui::GetIO().MousePos;
    int step = int(std::floor((m.x - origin.x - kLeft) / m_cell));
    int thread = -1;
    for (int t = 0; t < m_threads; ++t)
        if (m.y >= rowY(t) && m.y < rowY(t) + m_cell) thread = t;
    if (ImGui::IsWindowHovered() && m.x >= win.x + kLeft && step >= 0 && step < steps()) {
        const Step& s = m_steps[size_t(step)];
        std::string mask = maskString(s.mask, m_lanes);
        std::string ran = "step " + std::to_string(step) + ": warp " + std::to_string(s.warp) + " ran b" +
                          std::to_string(s.block) + lineLabel(s.block) + " with lanes " + mask;
        if (thread >= 0)
            ImGui::SetTooltip("%s\nwarp %d lane %d: %s", ran.c_str(), thread / m_lanes, thread % m_lanes,
                              nameOf(laneState(step, thread)));
        else
            ImGui::SetTooltip("%s", ran.c_str());
        if (ImGui::IsMouseClicked(0) && onStepClicked) onStepClicked(step);
    }
    ImGui::Dummy(ImVec2(kLeft + float(steps()) * m_cell + 10, rowY(m_threads) - origin.y + 4));
    ImGui::EndChild();
}

}  // namespace qgpu
