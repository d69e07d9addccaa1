// ImGui viewer: one head of the model's recurrent state as a heatmap, every row labelled with what the
// layout keeps there (register, ROM word, memory word); hovering shows the raw value and the row's word.
#pragma once

#include <functional>
#include <mutex>

#include "qgpu/core/Session.h"
#include "qgpu/ui/ImGuiHost.h"

namespace qgpu {

class StateHeatmap : public ImGuiViewer {
public:
    const char* title() const override { return "Recurrent state"; }
    void draw() override;
    // Locks the session for a read of the viewer's own (the studio's engine steps it on another thread).
    using Lock = std::function<std::unique_lock<std::mutex>()>;
    // Reads the layout and the selected head at the session's current step (the caller holds the session
    // still meanwhile). The session must stay alive until the next show() or clear(): the viewer reads other
    // heads from it, under `lock` when given, when the user picks one.
    void show(const Session& session, Lock lock = {});
    void clear();
    void select(int layer, int head);
    const StateHead& head() const { return m_head; }
    const StateLayout& layout() const { return m_layout; }

private:
    const Session* m_session = nullptr;
    Lock m_lock;
    StateLayout m_layout;
    StateHead m_head;
    int m_layer = 0, m_headIndex = 0;
    bool m_chosen = false;  // a head was picked (by the user, or the default on first show)
    float m_cell = 3.0f;    // zoom: pixels per state entry
};

}  // namespace qgpu
