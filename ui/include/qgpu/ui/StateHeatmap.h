// ImGui viewer: one head of the model's recurrent state as a heatmap. Rows (the memory's rows) are labelled
// down the left with what the layout keeps there (register, ROM word, memory word), columns along the top
// with the bit their dual rail holds; a colour legend gives the value range. The heads are picked by group
// (ROM, registers, global and shared memory, lanes, scratch) with a search box, and the rows the token going
// in reads and writes are marked, and the rows the last move changed. Ctrl+wheel zooms.
#pragma once

#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "qgpu/core/Session.h"
#include "qgpu/ui/ImGuiHost.h"
#include "qgpu/ui/StateRowIndex.h"

namespace qgpu {

class StateHeatmap : public ImGuiViewer {
public:
    const char* title() const override { return "Recurrent state"; }
    void draw() override;
    // Locks the session for a read of the viewer's own (the studio's engine steps it on another thread).
    using Lock = std::function<std::unique_lock<std::mutex>()>;
    // Reads the layout and the selected head at the session's current step (the caller holds the session
    // still meanwhile), and marks the rows `trace` (the token going in; empty: none) reads and writes. The
    // session must stay alive until the next show() or clear(): the viewer reads other heads from it, under
    // `lock` when given, when the user picks one.
    void show(const Session& session, const TokenTrace& trace, Lock lock = {});
    void clear();
    void select(int layer, int head);
    const StateHead& head() const { return m_head; }
    const StateLayout& layout() const { return m_layout; }
    // The rows of the selected head the token going in reads (its query) and writes (its key).
    const std::vector<int>& rowsRead() const;
    const std::vector<int>& rowsWritten() const;
    // The rows of the selected head that changed since the moment shown before (a step or a token back when
    // stepping); none after another head is picked.
    const std::vector<int>& rowsChanged() const { return m_changed; }

    // The heads whose memory's group or name contains `search` (case-insensitive), as layer * heads + head,
    // grouped in the order of memoryGroups().
    std::vector<int> headsMatching(const std::string& search) const;
    // The rows whose meaning holds every word of `search` ("lane 2 r1": where warp 0's lane 2 keeps r1, in
    // the register file and its copies), in layer and head order, at most `limit`.
    using RowPlace = StateRowIndex::Place;
    std::vector<RowPlace> rowsMeaning(const std::string& search, size_t limit = 50) const;
    // Shows a row of a head: selects the head, scrolls to the row and outlines it.
    void showRow(const RowPlace& place);
    static const std::vector<std::string>& memoryGroups();
    static std::string groupOf(const std::string& memory);  // "Registers" for "regs_a3"

private:
    void drawHeadPicker();
    void drawLegend(float scale);
    void drawCells(float scale);
    void drawRowMarks(float gridX, float gridY);  // the cells' top left corner on the screen
    void drawRowsFound();
    int rowLabelEvery() const;  // label every n-th row: as often as the zoom leaves room for text

    const Session* m_session = nullptr;
    Lock m_lock;
    StateLayout m_layout;
    StateHead m_head;
    // Per layer, per head: the rows the token going in reads and writes.
    std::vector<std::vector<std::vector<int>>> m_read, m_written;
    std::string m_token;  // the token going in
    int m_layer = 0, m_headIndex = 0;
    bool m_chosen = false;       // a head was picked (by the user, or the default on first show)
    std::vector<int> m_changed;  // rows of the selected head that the last moment changed
    float m_cell = 6.0f;         // zoom: pixels per state entry
    char m_search[64] = "";
    int m_shownRow = -1;  // a row searched for, outlined in white
    bool m_scrollToRow = false;
    mutable StateRowIndex m_rows;  // read once the first search by meaning asks
};

}  // namespace qgpu
