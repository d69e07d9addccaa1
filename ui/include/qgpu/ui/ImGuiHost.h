// The one QOpenGLWidget that hosts a Dear ImGui context; viewers draw into it through ImGuiViewer.
#pragma once

#include <QElapsedTimer>
#include <QOpenGLWidget>
#include <vector>

struct ImGuiContext;

namespace qgpu {

class ImGuiViewer {
public:
    virtual ~ImGuiViewer() = default;
    virtual const char* title() const = 0;
    virtual void draw() = 0;  // called between ImGui::NewFrame and ImGui::Render, window already begun
};

// The viewers' zoom: Ctrl+wheel over the current ImGui window scales `cell` (pixels per cell) by a quarter
// a notch, within [lo, hi].
void zoomByCtrlWheel(float& cell, float lo, float hi);

class ImGuiHost : public QOpenGLWidget {
public:
    ImGuiHost(ImGuiViewer* viewer, QWidget* parent = nullptr);
    ~ImGuiHost() override;

protected:
    void initializeGL() override;
    void paintGL() override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void keyReleaseEvent(QKeyEvent* e) override;
    void focusOutEvent(QFocusEvent* e) override;

private:
    void makeImGuiCurrent();
    void keyEvent(QKeyEvent* e, bool down);
    // Sets a button's or key's state; a release before any frame saw the press waits for the next frame.
    void press(bool* state, bool down);
    void afterInput();  // draws the frame that shows the input, and the frames that settle it

    ImGuiViewer* m_viewer;
    ImGuiContext* m_ctx = nullptr;
    bool m_glReady = false;
    QElapsedTimer m_clock;
    int m_settleFrames = 0;
    std::vector<bool*> m_downSinceFrame, m_releaseAfterFrame;  // in ImGui's IO: MouseDown, KeysDown
};

}  // namespace qgpu
