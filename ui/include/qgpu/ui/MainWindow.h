// qgpu studio's main window: editor, launch spec, state panels and the divergence timeline, all driven
// through the Session API.
#pragma once

#include <QMainWindow>
#include <memory>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Session.h"

class QsciScintilla;
class QPlainTextEdit;
class QListWidget;
class QLabel;

namespace qgpu {

class CodeViews;
class RegisterView;
class MemoryView;
class DivergenceTimeline;
class ImGuiHost;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    // Loads a CUDA kernel (.cu) or an assembly program (.qasm) and, if present beside it, NAME.json as
    // the launch spec, then builds it.
    bool openProgram(const QString& path);
    // Compiles (CUDA) or assembles the editor text and loads it with the launch spec; shows errors at
    // their lines.
    bool build();
    void step();
    void stepBack();
    void run();
    void runBack();
    void reset();
    void toggleBreakpoint(int line);  // 0-based editor line
    void moveTo(int position);        // go to a recorded step, forwards or backwards

    Session& session() { return *m_session; }
    QsciScintilla* editor() const { return m_editor; }
    QPlainTextEdit* launchEditor() const { return m_launch; }
    RegisterView* registers() const { return m_registers; }
    MemoryView* memory() const { return m_memory; }
    QListWidget* events() const { return m_events; }
    CodeViews* codeViews() const { return m_codeViews; }
    QString statusText() const;

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    void createActions();
    void createDocks();
    void populateExamples(QMenu* menu);
    void refresh();
    void showDiagnostics(const std::vector<Diagnostic>& diags);
    void unload();
    void setStatus(const QString& text);
    void report(StopReason r);
    std::set<Breakpoint> breakpointsFromMarkers() const;

    std::unique_ptr<Session> m_session;
    Program m_program;
    MemoryMap m_map;
    QString m_path;
    QsciScintilla* m_editor;
    QPlainTextEdit* m_launch;
    CodeViews* m_codeViews;
    RegisterView* m_registers;
    MemoryView* m_memory;
    QListWidget* m_events;
    QLabel* m_status;
    std::unique_ptr<DivergenceTimeline> m_timeline;
    ImGuiHost* m_timelineHost = nullptr;
};

QString resourceDir();  // $QGPU_RESOURCES, else the source tree's resources/

}  // namespace qgpu
