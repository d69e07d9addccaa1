#include "qgpu/ui/StateHeatmap.h"

#include <imgui.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "qgpu/ui/WordSearch.h"

namespace qgpu {

namespace {

constexpr ImU32 kChangedColour = IM_COL32(80, 200, 250, 255);  // a row the last move changed
constexpr float kAxisLeft = 190, kAxisTop = 18;  // room for row labels and column numbers (a wide panel's)
const std::vector<int> kNoRows;

// Dark at zero, red for positive and blue for negative values, brighter with magnitude relative to `scale`.
ImU32 color(float v, float scale) {
    float t = scale > 0 ? std::clamp(v / scale, -1.0f, 1.0f) : 0.0f;
    int bright = 40 + int(215 * std::fabs(t));
    return t >= 0 ? IM_COL32(bright, 40, 40, 255) : IM_COL32(40, 40, bright, 255);
}

std::string lower(std::string s) {
    for (char& c : s) c = char(std::tolower(uint8_t(c)));
    return s;
}

bool startsWith(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

std::string headName(const StateLayout& layout, int layer, int head) {
    const std::string& m = layout.memories[size_t(layer * layout.heads + head)];
    return m + "  (layer " + std::to_string(layer) + ", head " + std::to_string(head) + ")";
}

}  // namespace

const std::vector<std::string>& StateHeatmap::memoryGroups() {
    static const std::vector<std::string> groups = {"ROM",           "Registers",         "Global memory",
                                                    "Shared memory", "Lanes and control", "Scratch and latches"};
    return groups;
}

std::string StateHeatmap::groupOf(const std::string& m) {
    if (startsWith(m, "rom_")) return "ROM";
    if (startsWith(m, "regs_")) return "Registers";
    if (startsWith(m, "global")) return "Global memory";
    if (startsWith(m, "shared")) return "Shared memory";
    if (startsWith(m, "lane") || startsWith(m, "barrier") || m == "exec" || m == "block_shape" || m == "grid_shape" ||
        m == "epoch")
        return "Lanes and control";
    return "Scratch and latches";
}

std::vector<int> StateHeatmap::headsMatching(const std::string& search) const {
    std::string want = lower(search);
    std::vector<int> out;
    for (const std::string& group : memoryGroups())
        for (size_t i = 0; i < m_layout.memories.size(); ++i) {
            const std::string& m = m_layout.memories[i];
            if (m.empty() || groupOf(m) != group) continue;
            if (want.empty() || lower(m).find(want) != std::string::npos ||
                lower(group).find(want) != std::string::npos)
                out.push_back(int(i));
        }
    return out;
}

std::vector<StateHeatmap::RowPlace> StateHeatmap::rowsMeaning(const std::string& search, size_t limit) const {
    if (!m_session || search.empty()) return {};
    if (m_rows.empty()) {
        std::unique_lock<std::mutex> held;
        if (m_lock) held = m_lock();
        m_rows.read(*m_session);
    }
    return m_rows.find([&](const std::string& meaning) { return containsWords(meaning, search); }, limit);
}

void StateHeatmap::showRow(const RowPlace& place) {
    select(place.layer, place.head);
    m_shownRow = place.row;
    m_scrollToRow = true;
}

void StateHeatmap::show(const Session& session, const TokenTrace& trace, Lock lock) {
    if (&session != m_session) m_rows.clear();
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
    StateHead now = session.stateHead(m_layer, m_headIndex);
    m_changed.clear();
    if (now.layer == m_head.layer && now.head == m_head.head && now.values.size() == m_head.values.size())
        for (int r = 0; r < now.rows; ++r) {
            auto row = [&](const StateHead& h) { return h.values.begin() + long(r) * h.cols; };
            if (!std::equal(row(now), row(now) + now.cols, row(m_head))) m_changed.push_back(r);
        }
    m_head = std::move(now);
    m_token = trace.token;
    m_read.clear();
    m_written.clear();
    for (const LayerTrace& l : trace.layers) {
        m_read.push_back(l.rowsRead);
        m_written.push_back(l.rowsWritten);
    }
}

void StateHeatmap::clear() {
    m_session = nullptr;
    m_rows.clear();
    m_shownRow = -1;
    m_lock = {};
    m_layout = StateLayout{};
    m_head = StateHead{};
    m_changed.clear();
    m_read.clear();
    m_written.clear();
    m_token.clear();
}

void StateHeatmap::select(int layer, int head) {
    m_chosen = true;
    m_shownRow = -1;
    m_layer = layer;
    m_headIndex = head;
    m_changed.clear();  // nothing of this head was shown before
    if (!m_session) return;
    std::unique_lock<std::mutex> held;
    if (m_lock) held = m_lock();
    m_head = m_session->stateHead(layer, head);
}

const std::vector<int>& StateHeatmap::rowsRead() const {
    if (size_t(m_layer) >= m_read.size() || size_t(m_headIndex) >= m_read[size_t(m_layer)].size()) return kNoRows;
    return m_read[size_t(m_layer)][size_t(m_headIndex)];
}

const std::vector<int>& StateHeatmap::rowsWritten() const {
    if (size_t(m_layer) >= m_written.size() || size_t(m_headIndex) >= m_written[size_t(m_layer)].size()) return kNoRows;
    return m_written[size_t(m_layer)][size_t(m_headIndex)];
}

int StateHeatmap::rowLabelEvery() const {
    float line = ImGui::GetTextLineHeight();
    int every = 1;
    while (float(every) * m_cell < line) every *= 2;
    return every;
}

void StateHeatmap::draw() {
    if (m_layout.layers == 0 || !m_session) {
        ImGui::TextWrapped("The recurrent state exists on the model backend: choose \"model\" in the Backend box.");
        return;
    }
    drawHeadPicker();
    ImGui::SameLine();
    ImGui::SetNextItemWidth(110);
    ImGui::SliderFloat("zoom (Ctrl+wheel)", &m_cell, 1.0f, 16.0f, "%.0f px");
    if (m_head.rows == 0) return;
    float scale = 0;
    for (float v : m_head.values) scale = std::max(scale, std::fabs(v));
    drawLegend(scale);
    drawCells(scale);
}

void StateHeatmap::drawHeadPicker() {
    ImGui::SetNextItemWidth(300);
    if (!ImGui::BeginCombo("head", headName(m_layout, m_layer, m_headIndex).c_str(), ImGuiComboFlags_HeightLarge))
        return;
    if (ImGui::IsWindowAppearing()) ImGui::SetKeyboardFocusHere();
    ImGui::SetNextItemWidth(-1);
    ImGui::InputTextWithHint("##search", "search (regs, global, rom_term, lane 2 r1, global word 7, ...)", m_search,
                             sizeof m_search);
    std::string group;
    for (int index : headsMatching(m_search)) {
        const std::string& memory = m_layout.memories[size_t(index)];
        if (groupOf(memory) != group) {
            group = groupOf(memory);
            ImGui::TextDisabled("%s", group.c_str());
        }
        int l = index / m_layout.heads, h = index % m_layout.heads;
        bool selected = l == m_layer && h == m_headIndex;
        if (ImGui::Selectable(("   " + headName(m_layout, l, h)).c_str(), selected)) select(l, h);
        if (selected && ImGui::IsWindowAppearing()) ImGui::SetScrollHereY();
    }
    drawRowsFound();
    ImGui::EndCombo();
}

// Under the heads: with several words, the rows whose meaning holds them; a click shows the row.
void StateHeatmap::drawRowsFound() {
    if (std::string(m_search).find(' ') == std::string::npos) return;
    std::vector<RowPlace> rows = rowsMeaning(m_search);
    ImGui::TextDisabled("Rows meaning \"%s\"%s", m_search, rows.empty() ? ": none" : "");
    for (const RowPlace& p : rows) {
        std::string name =
            "   " + headName(m_layout, p.layer, p.head) + " row " + std::to_string(p.row) + ": " + p.meaning;
        if (ImGui::Selectable(name.c_str(), false)) showRow(p);
    }
}

void StateHeatmap::drawLegend(float scale) {
    ImDrawList* dl = ImGui::GetWindowDrawList();
    ImVec2 p = ImGui::GetCursorScreenPos();
    float w = 160, h = ImGui::GetTextLineHeight();
    for (int i = 0; i < 64; ++i) {
        float v = (float(i) / 63.0f * 2 - 1) * scale;
        float x = p.x + w * float(i) / 64.0f;
        dl->AddRectFilled(ImVec2(x, p.y), ImVec2(x + w / 64.0f + 1, p.y + h), color(v, scale));
    }
    ImGui::Dummy(ImVec2(w, h));
    ImGui::SameLine();
    ImGui::Text("-%g .. 0 .. +%g", double(scale), double(scale));
    ImGui::SameLine();
    ImVec2 q = ImGui::GetCursorScreenPos();
    dl->AddRect(q, ImVec2(q.x + h, q.y + h), IM_COL32(90, 220, 90, 255), 0, 0, 2);
    ImGui::Dummy(ImVec2(h, h));
    ImGui::SameLine();
    ImGui::Text("read  ");
    ImGui::SameLine();
    q = ImGui::GetCursorScreenPos();
    dl->AddRectFilled(q, ImVec2(q.x + h / 3, q.y + h), kChangedColour);
    ImGui::Dummy(ImVec2(h / 3, h));
    ImGui::SameLine();
    ImGui::Text("changed since the moment before: %zu rows  ", m_changed.size());
    ImGui::SameLine();
    q = ImGui::GetCursorScreenPos();
    dl->AddRect(q, ImVec2(q.x + h, q.y + h), IM_COL32(250, 210, 60, 255), 0, 0, 2);
    ImGui::Dummy(ImVec2(h, h));
    ImGui::SameLine();
    ImGui::Text("written, by the token going in: %s", m_token.empty() ? "none" : m_token.c_str());
    ImGui::TextDisabled("%d rows (keys) x %d columns (values: bit i on columns 2i set, 2i+1 clear)", m_head.rows,
                        m_head.cols);
}

// The rows the token going in reads (green) and writes (yellow), the row searched for (white), and a bar left of
// each row that changed since the moment shown before.
void StateHeatmap::drawRowMarks(float gridX, float gridY) {
    ImVec2 grid(gridX, gridY);
    ImDrawList* dl = ImGui::GetWindowDrawList();
    auto rowY = [&](int r) { return grid.y + float(r) * m_cell; };
    float right = grid.x + float(m_head.cols) * m_cell;
    auto outline = [&](int r, float gap, ImU32 colour) {
        dl->AddRect(ImVec2(grid.x - gap, rowY(r) - gap), ImVec2(right + gap, rowY(r + 1) + gap), colour, 0, 0, 2);
    };
    for (int r : rowsRead()) outline(r, 1, IM_COL32(90, 220, 90, 255));
    for (int r : rowsWritten()) outline(r, 2, IM_COL32(250, 210, 60, 255));
    if (m_shownRow >= 0 && m_shownRow < m_head.rows) outline(m_shownRow, 3, IM_COL32(255, 255, 255, 255));
    for (int r : m_changed)
        dl->AddRectFilled(ImVec2(grid.x - 8, rowY(r)), ImVec2(grid.x - 3, std::max(rowY(r + 1), rowY(r) + 2)),
                          kChangedColour);
}

void StateHeatmap::drawCells(float scale) {
    ImGui::BeginChild("cells", ImVec2(0, 0), false, ImGuiWindowFlags_HorizontalScrollbar);
    zoomByCtrlWheel(m_cell, 1.0f, 16.0f);
    ImVec2 origin = ImGui::GetCursorScreenPos(), win = ImGui::GetWindowPos();
    ImDrawList* dl = ImGui::GetWindowDrawList();
    float winW = ImGui::GetWindowWidth(), winH = ImGui::GetWindowHeight();
    const float axisLeft = std::min(kAxisLeft, winW * 0.4f);  // a narrow panel keeps most of its width for cells
    ImVec2 grid(origin.x + axisLeft, origin.y + kAxisTop);
    auto rowY = [&](int r) { return grid.y + float(r) * m_cell; };
    auto colX = [&](int c) { return grid.x + float(c) * m_cell; };
    for (int r = 0; r < m_head.rows; ++r) {
        float y = rowY(r);
        if (y + m_cell < win.y || y > win.y + winH) continue;
        for (int c = 0; c < m_head.cols; ++c) {
            float x = colX(c);
            if (x + m_cell < win.x || x > win.x + winW) continue;
            dl->AddRectFilled(ImVec2(x, y), ImVec2(x + m_cell, y + m_cell),
                              color(m_head.values[size_t(r * m_head.cols + c)], scale));
        }
    }
    drawRowMarks(grid.x, grid.y);
    if (m_shownRow >= 0 && m_shownRow < m_head.rows && m_scrollToRow)
        ImGui::SetScrollY(kAxisTop + float(m_shownRow) * m_cell - winH / 2);
    m_scrollToRow = false;

    // Axes that stay in view while the cells scroll: the rows' meanings down the left, bits along the top.
    ImU32 axisBg = IM_COL32(20, 20, 24, 255), text = IM_COL32(200, 200, 200, 255);
    float line = ImGui::GetTextLineHeight();
    dl->AddRectFilled(ImVec2(win.x, grid.y), ImVec2(win.x + axisLeft - 4, rowY(m_head.rows)), axisBg);
    int every = rowLabelEvery();
    for (int r = 0; r < m_head.rows; r += every) {
        float y = m_cell >= line ? rowY(r) + (m_cell - line) / 2 : rowY(r);  // beside the row, or from its top
        std::string label = std::to_string(r) + " " + m_head.rowLabels[size_t(r)];
        dl->PushClipRect(ImVec2(win.x, y), ImVec2(win.x + axisLeft - 6, y + line), true);
        dl->AddText(ImVec2(win.x + 2, y), text, label.c_str());
        dl->PopClipRect();
    }
    float top = std::max(origin.y, win.y);
    dl->AddRectFilled(ImVec2(win.x, top), ImVec2(win.x + winW, top + kAxisTop), axisBg);
    int colEvery = std::max(2, int(std::ceil(28.0f / m_cell / 2.0f)) * 2);  // a bit's pair of columns at least
    for (int c = 0; c < m_head.cols; c += colEvery) {
        float x = colX(c);
        if (x < win.x + axisLeft - 4 || x > win.x + winW) continue;
        dl->AddLine(ImVec2(x, top + kAxisTop - 4), ImVec2(x, top + kAxisTop), text);
        dl->AddText(ImVec2(x + 1, top), text, ("b" + std::to_string(c / 2)).c_str());
    }
    dl->AddText(ImVec2(win.x + 2, top), text, "row: meaning");

    ImVec2 size(axisLeft + float(m_head.cols) * m_cell, kAxisTop + float(m_head.rows) * m_cell);
    ImGui::InvisibleButton("map", size);
    if (ImGui::IsItemHovered()) {
        ImVec2 mouse = ImGui::GetIO().MousePos;
        int r = int(std::floor((mouse.y - grid.y) / m_cell)), c = int(std::floor((mouse.x - grid.x) / m_cell));
        if (r >= 0 && r < m_head.rows && mouse.x >= win.x + axisLeft && mouse.y >= top + kAxisTop) {
            uint32_t word = m_head.rowWords[size_t(r)];
            bool read = std::binary_search(rowsRead().begin(), rowsRead().end(), r);
            bool written = std::binary_search(rowsWritten().begin(), rowsWritten().end(), r);
            std::string cell = c >= 0 && c < m_head.cols
                                   ? "column " + std::to_string(c) + " (bit " + std::to_string(c / 2) +
                                         (c % 2 ? ", clear rail" : ", set rail") +
                                         "): " + std::to_string(m_head.values[size_t(r * m_head.cols + c)])
                                   : "";
            ImGui::SetTooltip("row %d: %s%s%s\n%s\nthe row as a word: 0x%08x (%d)", r,
                              m_head.rowLabels[size_t(r)].c_str(), read ? "; read by the token going in" : "",
                              written ? "; written by it" : "", cell.c_str(), word, int32_t(word));
        }
    }
    ImGui::EndChild();
}

}  // namespace qgpu
