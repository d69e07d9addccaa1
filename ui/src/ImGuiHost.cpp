#include "qgpu/ui/ImGuiHost.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFramebufferObject>
#include <QOpenGLFunctions>
#include <QPainter>
#include <QTimer>
#include <QWheelEvent>
#include <algorithm>
#include <cfloat>
#include <iterator>
#include <string>

#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>

namespace qgpu {

namespace {
const QColor kBackground(26, 26, 31);  // behind the viewer, and the whole widget without OpenGL
}  // namespace

void zoomByCtrlWheel(float& cell, float lo, float hi) {
    ImGuiIO& io = ImGui::GetIO();
    if (ImGui::IsWindowHovered() && io.KeyCtrl && io.MouseWheel != 0)
        cell = std::clamp(cell * (io.MouseWheel > 0 ? 1.25f : 0.8f), lo, hi);
}

ImGuiHost::ImGuiHost(ImGuiViewer* viewer, QWidget* parent) : QWidget(parent), m_viewer(viewer) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);  // each frame covers the whole widget
    setMinimumSize(200, 120);
    m_ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(m_ctx);
    ImGui::GetIO().IniFilename = nullptr;  // Qt saves the window layout, ImGui keeps nothing on disk
    ImGui::StyleColorsDark();
    ImGuiIO& io = ImGui::GetIO();
    for (int k = 0; k < ImGuiKey_COUNT; ++k) io.KeyMap[k] = k;  // keys go in by ImGuiKey
    // Copy and paste go through the desktop's clipboard.
    io.SetClipboardTextFn = [](void*, const char* text) {
        QGuiApplication::clipboard()->setText(QString::fromUtf8(text));
    };
    io.GetClipboardTextFn = [](void*) -> const char* {
        static std::string held;  // ImGui reads it before the next call (the GUI thread only)
        held = QGuiApplication::clipboard()->text().toStdString();
        return held.c_str();
    };
    setFocusPolicy(Qt::StrongFocus);  // search boxes take typing
    m_clock.start();
}

ImGuiHost::~ImGuiHost() {
    makeImGuiCurrent();
    if (m_glReady && m_gl->makeCurrent(m_surface.get())) {
        m_fbo.reset();
        ImGui_ImplOpenGL3_Shutdown();
        m_gl->doneCurrent();
    }
    ImGui::DestroyContext(m_ctx);
}

void ImGuiHost::makeImGuiCurrent() { ImGui::SetCurrentContext(m_ctx); }

bool ImGuiHost::makeGlCurrent() {
    if (!m_gl) {  // once: a machine without OpenGL shows an empty viewer
        m_gl = std::make_unique<QOpenGLContext>();
        m_surface = std::make_unique<QOffscreenSurface>();
        if (!m_gl->create()) return false;
        m_surface->setFormat(m_gl->format());
        m_surface->create();
        if (!m_gl->makeCurrent(m_surface.get())) return false;
        makeImGuiCurrent();
        m_glReady = ImGui_ImplOpenGL3_Init("#version 130");
        if (!m_glReady) m_gl->doneCurrent();
        return m_glReady;
    }
    return m_glReady && m_gl->makeCurrent(m_surface.get());
}

QImage ImGuiHost::grabFramebuffer() { return renderFrame(); }

void ImGuiHost::paintEvent(QPaintEvent*) {
    QImage frame = renderFrame();
    QPainter painter(this);
    if (frame.isNull())
        painter.fillRect(rect(), kBackground);
    else
        painter.drawImage(0, 0, frame);
}

QImage ImGuiHost::renderFrame() {
    qreal dpr = devicePixelRatioF();
    QSize pixels = size() * dpr;
    if (pixels.isEmpty() || !makeGlCurrent()) return {};
    if (!m_fbo || m_fbo->size() != pixels) m_fbo = std::make_unique<QOpenGLFramebufferObject>(pixels);
    m_fbo->bind();
    QOpenGLFunctions* gl = m_gl->functions();
    gl->glViewport(0, 0, pixels.width(), pixels.height());
    gl->glClearColor(kBackground.redF(), kBackground.greenF(), kBackground.blueF(), 1.0f);
    gl->glClear(GL_COLOR_BUFFER_BIT);
    drawViewer();
    QImage frame = m_fbo->toImage();
    m_fbo->release();
    m_gl->doneCurrent();
    frame.setDevicePixelRatio(dpr);
    return frame;
}

void ImGuiHost::drawViewer() {
    makeImGuiCurrent();
    ImGuiIO& io = ImGui::GetIO();
    qreal dpr = devicePixelRatioF();
    io.DisplaySize = ImVec2(float(width()), float(height()));
    io.DisplayFramebufferScale = ImVec2(float(dpr), float(dpr));
    io.DeltaTime = std::max(1e-4f, float(m_clock.restart()) / 1000.0f);
    ImGui_ImplOpenGL3_NewFrame();
    ImGui::NewFrame();
    ImGui::SetNextWindowPos(ImVec2(0, 0));
    ImGui::SetNextWindowSize(io.DisplaySize);
    ImGui::Begin(m_viewer->title(), nullptr,
                 ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings);
    m_viewer->draw();
    ImGui::End();
    ImGui::Render();
    ImGui_ImplOpenGL3_RenderDrawData(ImGui::GetDrawData());
    // This frame saw every button and key pressed since the last one: the releases that waited for it come
    // now (ImGui wants the modifiers to hold still within a frame).
    m_downSinceFrame.clear();
    for (bool* down : m_releaseAfterFrame) *down = false;
    if (!m_releaseAfterFrame.empty()) m_settleFrames = std::max(m_settleFrames, 1);
    m_releaseAfterFrame.clear();
    // ImGui answers an input over the next frames (a popup opens the frame after the click that asked for
    // it, a hover settles after the move): draw those too rather than wait for the next input.
    if (m_settleFrames > 0) {
        --m_settleFrames;
        QTimer::singleShot(0, this, [this] { update(); });
    }
}

namespace {

// The keys ImGui's text fields and lists use, by Qt key; -1 for others.
int imguiKey(int qtKey) {
    switch (qtKey) {
        case Qt::Key_Tab: return ImGuiKey_Tab;
        case Qt::Key_Left: return ImGuiKey_LeftArrow;
        case Qt::Key_Right: return ImGuiKey_RightArrow;
        case Qt::Key_Up: return ImGuiKey_UpArrow;
        case Qt::Key_Down: return ImGuiKey_DownArrow;
        case Qt::Key_Home: return ImGuiKey_Home;
        case Qt::Key_End: return ImGuiKey_End;
        case Qt::Key_Delete: return ImGuiKey_Delete;
        case Qt::Key_Backspace: return ImGuiKey_Backspace;
        case Qt::Key_Return:
        case Qt::Key_Enter: return ImGuiKey_Enter;
        case Qt::Key_Escape: return ImGuiKey_Escape;
        case Qt::Key_A: return ImGuiKey_A;
        case Qt::Key_C: return ImGuiKey_C;
        case Qt::Key_V: return ImGuiKey_V;
        case Qt::Key_X: return ImGuiKey_X;
        default: return -1;
    }
}

}  // namespace

void ImGuiHost::keyEvent(QKeyEvent* e, bool down) {
    makeImGuiCurrent();
    ImGuiIO& io = ImGui::GetIO();
    const Qt::KeyboardModifiers held = e->modifiers();
    press(&io.KeyCtrl, held & Qt::ControlModifier);
    press(&io.KeyShift, held & Qt::ShiftModifier);
    press(&io.KeyAlt, held & Qt::AltModifier);
    int key = imguiKey(e->key());
    if (key >= 0) press(&io.KeysDown[key], down);
    if (down && !(held & Qt::ControlModifier) && !e->text().isEmpty() && e->text()[0].isPrint())
        io.AddInputCharactersUTF8(e->text().toUtf8().constData());
    afterInput();
}

void ImGuiHost::keyPressEvent(QKeyEvent* e) { keyEvent(e, true); }
void ImGuiHost::keyReleaseEvent(QKeyEvent* e) { keyEvent(e, false); }

void ImGuiHost::press(bool* state, bool down) {
    if (down) {
        *state = true;
        m_downSinceFrame.push_back(state);
        m_releaseAfterFrame.erase(std::remove(m_releaseAfterFrame.begin(), m_releaseAfterFrame.end(), state),
                                  m_releaseAfterFrame.end());
    } else if (std::find(m_downSinceFrame.begin(), m_downSinceFrame.end(), state) != m_downSinceFrame.end()) {
        m_releaseAfterFrame.push_back(state);  // a quick click or key press: ImGui sees it down first
    } else {
        *state = false;
    }
}

void ImGuiHost::focusOutEvent(QFocusEvent* e) {
    QWidget::focusOutEvent(e);
    makeImGuiCurrent();
    ImGuiIO& io = ImGui::GetIO();  // keys released elsewhere must not stay down here
    std::fill(std::begin(io.KeysDown), std::end(io.KeysDown), false);
    io.KeyCtrl = io.KeyShift = io.KeyAlt = false;
    m_downSinceFrame.clear();
    m_releaseAfterFrame.clear();
    afterInput();
}

void ImGuiHost::afterInput() {
    m_settleFrames = 2;
    update();
}

void ImGuiHost::mouseMoveEvent(QMouseEvent* e) {
    makeImGuiCurrent();
    ImGui::GetIO().MousePos = ImVec2(float(e->position().x()), float(e->position().y()));
    afterInput();
}

void ImGuiHost::mousePressEvent(QMouseEvent* e) {
    makeImGuiCurrent();
    int b = e->button() == Qt::LeftButton ? 0 : e->button() == Qt::RightButton ? 1 : 2;
    ImGui::GetIO().MousePos = ImVec2(float(e->position().x()), float(e->position().y()));  // a click is where it is
    press(&ImGui::GetIO().MouseDown[b], true);
    afterInput();
}

void ImGuiHost::mouseReleaseEvent(QMouseEvent* e) {
    makeImGuiCurrent();
    int b = e->button() == Qt::LeftButton ? 0 : e->button() == Qt::RightButton ? 1 : 2;
    ImGui::GetIO().MousePos = ImVec2(float(e->position().x()), float(e->position().y()));  // a click is where it is
    press(&ImGui::GetIO().MouseDown[b], false);
    afterInput();
}

void ImGuiHost::wheelEvent(QWheelEvent* e) {
    makeImGuiCurrent();
    press(&ImGui::GetIO().KeyCtrl, e->modifiers() & Qt::ControlModifier);  // Ctrl+wheel zooms
    ImGui::GetIO().MouseWheel += float(e->angleDelta().y()) / 120.0f;
    afterInput();
}

void ImGuiHost::leaveEvent(QEvent*) {
    makeImGuiCurrent();
    ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no tooltip stays behind the mouse
    afterInput();
}

}  // namespace qgpu
