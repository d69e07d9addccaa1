// The widget that hosts a Dear ImGui context; viewers draw into it through ImGuiViewer.
#pragma once

#include <QElapsedTimer>
#include <QImage>
#include <QWidget>
#include <memory>
#include <vector>

struct ImGuiContext;
class QOffscreenSurface;
class QOpenGLContext;
class QOpenGLFramebufferObject;

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

// ImGui's frames are drawn with OpenGL into an offscreen framebuffer of the host's own context and painted as
// an image. A QOpenGLWidget would make Qt compose the whole window through OpenGL at every repaint of any
// widget in it: a window-sized texture upload and swap each time, which stalled the window for 40 to 200 ms
// at a time where OpenGL runs on the CPU (Mesa's llvmpipe: virtual machines, remote desktops, Xvfb).
class ImGuiHost : public QWidget {
public:
    ImGuiHost(ImGuiViewer* viewer, QWidget* parent = nullptr);
    ~ImGuiHost() override;

    QImage grabFramebuffer();  // draws a frame now and returns it (a null image without OpenGL)

protected:
    void paintEvent(QPaintEvent* e) override;
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
    bool makeGlCurrent();  // the context, its surface and ImGui's renderer, made the first time
    QImage renderFrame();
    void drawViewer();  // one ImGui frame of the viewer, into the bound framebuffer
    void keyEvent(QKeyEvent* e, bool down);
    // Sets a button's or key's state; a release before any frame saw the press waits for the next frame.
    void press(bool* state, bool down);
    void afterInput();  // draws the frame that shows the input, and the frames that settle it

    ImGuiViewer* m_viewer;
    ImGuiContext* m_ctx = nullptr;
    std::unique_ptr<QOpenGLContext> m_gl;
    std::unique_ptr<QOffscreenSurface> m_surface;
    std::unique_ptr<QOpenGLFramebufferObject> m_fbo;
    bool m_glReady = false;
    QElapsedTimer m_clock;
    int m_settleFrames = 0;
    std::vector<bool*> m_downSinceFrame, m_releaseAfterFrame;  // in ImGui's IO: MouseDown, KeysDown
};

}  // namespace qgpu
