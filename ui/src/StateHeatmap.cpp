#include "qgpu/ui/StateHeatmap.h"

#include <imgui.h>

#include <algorithm>
#include <cmath>
#include <string>

namespace qgpu {

namespace {

// Dark at zero, red for positive and blue for negative values, brighter with magnitude relative to `scale`.
ImU32 color(float v, float scale) {
    float t = scale > 0 ? std::clamp(v / scale, -1.0f, 1.0f) : 0.0f;
    int bright = 40 + int(215 * std::fabs(t));
    return t >= 0 ? IM_COL32(bright, 40, 40, 255) : IM_COL32(40, 40, bright, 255);
}

std::string headName(const StateLayout& layout, int layer, int head) {
    const std::string& m = layout.memories[size_t(layer * layout.heads + head)];
    return "layer " + std::to_string(layer) + ", head " + std::to_string(head) + ": " + (m.empty() ? "unused" : m);
}

}  // namespace

void StateHeatmap::show(const Session& session, Lock lock) {
    m_session = &session;
    m_lock = std::move(lock);
    m_layout = session.stateLayout();
    if (m_layout.layers == 0) {
        m_head = StateHead{};
        return;
    }
    if (!m_chosen || m_layer >= m_layout.layers || m_headIndex >= m_layout.heads) {
        // First time: the register file's first bank, else the first head that holds a memory.
        auto it = std::find(m_layout.memories.begin(), m_layout.memories.end(), "regs_a0");
        if (it == m_layout.memories.end())
            it = std::find_if(m_layout.memories.begin(), m_layout.memories.end(),
                              [](const std::string& m) { return !m.empty(); });
        int index = it == m_layout.memories.end() ? 0 : int(it - m_layout.memories.begin());
        m_layer = index / m_layout.heads;
        m_headIndex = index % m_layout.heads;
        m_chosen = true;
    }
    m_head = session.stateHead(m_layer, m_headIndex);
}

void StateHeatmap::clear() {
    m_session = nullptr;
    m_lock = {};
    m_layout = StateLayout{};
    m_head = StateHead{};
}

void StateHeatmap::select(int layer, int head) {
    m_chosen = true;
    m_layer = layer;
    m_headIndex = head;
    if (!m_session) return;
    std::unique_lock<std::mutex> held;
    if (m_lock) held = m_lock();
    m_head = m_session->stateHead(layer, head);
}

void StateHeatmap::draw() {
    if (m_layout.layers == 0 || !m_session) {
        ImGui::TextWrapped("The recurrent state exists on the model backend: choose \"model\" in the Backend box.");
        return;
    }
    ImGui::SetNextItemWidth(320);
    if (ImGui::BeginCombo("head", headName(m_layout, m_layer, m_headIndex).c_str())) {
        for (int l = 0; l < m_layout.layers; ++l)
            for (int h = 0; h < m_layout.heads; ++h) {
                if (m_layout.memories[size_t(l * m_layout.heads + h)].empty()) continue;
                bool selected = l == m_layer && h == m_headIndex;
                if (ImGui::Selectable(headName(m_layout, l, h).c_str(), selected)) select(l, h);
            }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(120);
    ImGui::SliderFloat("zoom", &m_cell, 1.0f, 10.0f, "%.0f px");
    if (m_head.rows == 0) return;
    float scale = 0;
    for (float v : m_head.values) scale = std::max(scale, std::fabs(v));
    ImGui::Text("%d x %d, largest |value| %g; rows are keys (the memory's rows), columns values (dual rails)",
                m_head.rows, m_head.cols, double(scale));

    ImGui::BeginChild("cells", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    ImVec2 origin = ImGui::GetCursorScreenPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec2 clipMin = ImGui::GetWindowPos(),
           clipMax(clipMin.x + ImGui::GetWindowWidth(), clipMin.y + ImGui::GetWindowHeight());
    for (int r = 0; r < m_head.rows; ++r) {
        float y = origin.y + float(r) * m_cell;
        if (y + m_cell < clipMin.y || y > clipMax.y) continue;
        for (int c = 0; c < m_head.cols; ++c) {
            float x = origin.x + float(c) * m_cell;
            if (x + m_cell < clipMin.x || x > clipMax.x) continue;
            dl->AddRectFilled(ImVec2(x, y), ImVec2(x + m_cell, y + m_cell),
                              color(m_head.values[size_t(r * m_head.cols + c)], scale));
        }
    }
    ImVec2 size(float(m_head.cols) * m_cell, float(m_head.rows) * m_cell);
    ImGui::InvisibleButton("map", ImVec2(std::max(size.x, 1.0f), std::max(size.y, 1.0f)));
    if (ImGui::IsItemHovered()) {
        ImVec2 mouse = ImGui::GetIO().MousePos;
        int r = int((mouse.y - origin.y) / m_cell), c = int((mouse.x - origin.x) / m_cell);
        if (r >= 0 && r < m_head.rows && c >= 0 && c < m_head.cols) {
            uint32_t word = m_head.rowWords[size_t(r)];
            ImGui::SetTooltip("row %d: %s\ncolumn %d: %g\nthe row as a word: 0x%08x (%d)", r,
                              m_head.rowLabels[size_t(r)].c_str(), c,
                              double(m_head.values[size_t(r * m_head.cols + c)]), word, int32_t(word));
        }
    }
    ImGui::EndChild();
}

}  // namespace qgpu
