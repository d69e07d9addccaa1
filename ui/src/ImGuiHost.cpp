#include "qgpu/ui/ImGuiHost.h"

#include <QMouseEvent>
#include <QOpenGLContext>
#include <QWheelEvent>
#include <cfloat>

#include <imgui.h>
#include <backends/imgui_impl_opengl3.h>

namespace qgpu {

ImGuiHost::ImGuiHost(ImGuiViewer* viewer, QWidget* parent) : QOpenGLWidget(parent), m_viewer(viewer) {
    setMouseTracking(true);
    setMinimumSize(200, 120);
    m_ctx = ImGui::CreateContext();
    ImGui::SetCurrentContext(m_ctx);
    ImGui::GetIO().IniFilename = nullptr;  // Qt saves the window layout, ImGui keeps nothing on disk
    ImGui::StyleColorsDark();
    m_clock.start();
}

ImGuiHost::~ImGuiHost() {
    makeImGuiCurrent();
    if (m_glReady) {
        makeCurrent();
        ImGui_ImplOpenGL3_Shutdown();
        m_glReady = false;
        doneCurrent();
    }
    ImGui::DestroyContext(m_ctx);
}

void ImGuiHost::makeImGuiCurrent() { ImGui::SetCurrentContext(m_ctx); }

void ImGuiHost::initializeGL() {
    makeImGuiCurrent();
    m_glReady = ImGui_ImplOpenGL3_Init("#version 130");
    // Floating or re-docking the panel gives the widget a new GL context: release the renderer with the
    // old one so the next initializeGL starts clean.
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, [this] {
        if (!m_glReady) return;
        makeImGuiCurrent();
        makeCurrent();
        ImGui_ImplOpenGL3_Shutdown();
        m_glReady = false;
        doneCurrent();
    });
}

void ImGuiHost::paintGL() {
    makeImGuiCurrent();
    ImGuiIO& io = ImGui::GetIO();
    qreal dpr = devicePixelRatioF();
    io.DisplaySize = ImVec2(float(width()), float(height()));
    io.DisplayFramebufferScale = ImVec2(float(dpr), float(dpr));
    io.DeltaTime = std::max(1e-4f, float(m_clock.restart()) / 1000.0f);
    glClearColor(0.1f, 0.1f, 0.12f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT);
    if (!m_glReady) return;
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
}

void ImGuiHost::mouseMoveEvent(QMouseEvent* e) {
    makeImGuiCurrent();
    ImGui::GetIO().MousePos = ImVec2(float(e->position().x()), float(e->position().y()));
    update();
}

void ImGuiHost::mousePressEvent(QMouseEvent* e) {
    makeImGuiCurrent();
    int b = e->button() == Qt::LeftButton ? 0 : e->button() == Qt::RightButton ? 1 : 2;
    ImGui::GetIO().MousePos = ImVec2(float(e->position().x()), float(e->position().y()));  // a click is where it is
    ImGui::GetIO().MouseDown[b] = true;
    update();
}

void ImGuiHost::mouseReleaseEvent(QMouseEvent* e) {
    makeImGuiCurrent();
    int b = e->button() == Qt::LeftButton ? 0 : e->button() == Qt::RightButton ? 1 : 2;
    ImGui::GetIO().MousePos = ImVec2(float(e->position().x()), float(e->position().y()));  // a click is where it is
    ImGui::GetIO().MouseDown[b] = false;
    update();
}

void ImGuiHost::wheelEvent(QWheelEvent* e) {
    makeImGuiCurrent();
    ImGui::GetIO().KeyCtrl = e->modifiers() & Qt::ControlModifier;  // Ctrl+wheel zooms
    ImGui::GetIO().MouseWheel += float(e->angleDelta().y()) / 120.0f;
    update();
}

void ImGuiHost::leaveEvent(QEvent*) {
    makeImGuiCurrent();
    ImGui::GetIO().MousePos = ImVec2(-FLT_MAX, -FLT_MAX);  // no tooltip stays behind the mouse
    update();
}

}  // namespace qgpu
