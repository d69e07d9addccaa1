// qgpu studio's main window: editor, launch spec, state panels and the divergence timeline, all driven
// through the Session API.
#pragma once

#include <QMainWindow>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Session.h"
#include "qgpu/ui/LaunchPanel.h"

class QsciScintilla;
class QPlainTextEdit;
class QListWidget;
class QLabel;
class QComboBox;
class QDockWidget;
class QTimer;

namespace qgpu {

class ChatEngine;
class ChatPanel;
class CodeViews;
class RegisterView;
class MemoryView;
class DivergenceTimeline;
class StateHeatmap;
class ImGuiHost;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    using SessionFactory = std::function<std::unique_ptr<Session>()>;
    // Adds a backend to the Backend box; the reference interpreter is there from the start. The app adds
    // the GPU inside the model (the UI library itself links no Torch).
    void addBackend(const QString& name, SessionFactory make);
    // Switches to the named backend and rebuilds the program on it; false (and a status message) when
    // there is no such backend or it fails to start.
    bool setBackend(const QString& name);
    QString backend() const;

    // Loads a CUDA kernel (.cu) or an assembly program (.qasm) with `launchJson` as its launch spec, or
    // when that is empty NAME.json beside it if present, then builds it.
    bool openProgram(const QString& path, const QString& launchJson = {});
    // Adds the chat panel (a dock) over the app's engine; its cards open their launches here.
    void setChatEngine(std::unique_ptr<ChatEngine> engine);
    ChatPanel* chat() const { return m_chat; }
    // Compiles (CUDA) or assembles the editor text and loads it with the launch spec; shows errors at
    // their lines.
    bool build();
    void step();
    void stepToken();          // one token of the step the model is writing (other backends: a step)
    void stepLine();           // steps until the next step runs code of another source line
    void runToLine(int line);  // 1-based: steps until the next step runs a block with code of the line
    void stepBack();
    // Runs to a breakpoint, the end or the step limit in slices, so the window stays live on slow
    // backends; returns at once when the launch is done within the first slice.
    void run();
    void pause();
    bool running() const;
    void runBack();
    void reset();
    void toggleBreakpoint(int line);  // 0-based editor line
    // Runs the launch on a second backend beside this one (the reference when this is another, else the
    // first other backend) and stops both at the first step where their machines differ; the Backend diff
    // panel lists the differences. In slices like run() (running() meanwhile); false when there is no
    // other backend or nothing is loaded.
    bool compareBackends();
    void moveTo(int position);  // go to a recorded step, forwards or backwards

    Session& session() { return *m_session; }
    QsciScintilla* editor() const { return m_editor; }
    LaunchPanel* launchPanel() const { return m_launch; }
    QPlainTextEdit* launchEditor() const { return m_launch->jsonEditor(); }
    RegisterView* registers() const { return m_registers; }
    MemoryView* memory() const { return m_memory; }
    QListWidget* events() const { return m_events; }
    QListWidget* tokens() const { return m_tokens; }  // the model backend's token stream
    QListWidget* diff() const { return m_diff; }      // the last backend comparison
    CodeViews* codeViews() const { return m_codeViews; }
    StateHeatmap* heatmap() const { return m_heatmap.get(); }
    QString statusText() const;

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    void createActions();
    void createDocks();
    void populateExamples(QMenu* menu);
    void refresh();
    void refreshTokens();
    int sourceLine(int block) const;  // the first source line of a block's code (0: none)
    void addRecentFile(const QString& path);
    void fillRecentMenu();
    // Runs in slices until `arrived` holds before a step (or a breakpoint, the end, the step limit).
    void startRun(std::function<bool()> arrived, const QString& arrivedNote);
    void continueRun();
    void continueCompare();
    void showDiagnostics(const std::vector<Diagnostic>& diags);
    void unload();
    void setStatus(const QString& text);
    void report(StopReason r);
    std::set<Breakpoint> breakpointsFromMarkers() const;
    // The blocks with code on a line `atLine` accepts (in assembly also the block a label line starts).
    std::set<int> blocksAt(const std::function<bool(int line)>& atLine) const;

    std::unique_ptr<Session> m_session;
    Program m_program;
    MemoryMap m_map;
    QString m_path;
    QsciScintilla* m_editor;
    LaunchPanel* m_launch;
    CodeViews* m_codeViews;
    RegisterView* m_registers;
    MemoryView* m_memory;
    QListWidget* m_events;
    QListWidget* m_tokens;
    QListWidget* m_diff;
    QMenu* m_recent;
    LaunchSpec m_launchSpec;  // the loaded launch
    QDockWidget* m_tokenDock;
    QDockWidget* m_heatmapDock;
    ChatPanel* m_chat = nullptr;
    QComboBox* m_backendBox;
    QTimer* m_runTimer;
    int m_runBudget = 0;              // steps the current run may still take
    std::function<bool()> m_arrived;  // where the current run stops (empty: Run's breakpoints and end only)
    QString m_arrivedNote;
    std::unique_ptr<Session> m_compareWith;  // the second backend of a comparison in progress
    std::unique_ptr<SessionComparer> m_comparer;
    std::vector<std::pair<QString, SessionFactory>> m_backends;
    int m_backend = 0;
    QLabel* m_status;
    std::unique_ptr<DivergenceTimeline> m_timeline;
    ImGuiHost* m_timelineHost = nullptr;
    std::unique_ptr<StateHeatmap> m_heatmap;
    ImGuiHost* m_heatmapHost = nullptr;
};

QString resourceDir();  // $QGPU_RESOURCES, else the source tree's resources/

}  // namespace qgpu
