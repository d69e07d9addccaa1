// qgpu studio's main window: editor, launch spec, state panels and the divergence timeline, all driven
// through the Session API. The session steps on the window's engine thread (EngineThread): the GUI thread
// only reads it, to show it.
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
class QAction;
class QDockWidget;

namespace qgpu {

class ChatEngine;
class ChatPanel;
class EngineThread;
class CodeViews;
class RegisterView;
class MemoryView;
class SharedMemoryView;
class RomView;
class LayerView;
class BackendDiffView;
class DivergenceTimeline;
class StateHeatmap;
class ImGuiHost;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;  // ends a run in flight between two steps and joins the engine thread

    using SessionFactory = std::function<std::unique_ptr<Session>()>;
    // Adds a backend to the Backend box; the reference interpreter is there from the start. The app adds
    // the GPU inside the model (the UI library itself links no Torch).
    void addBackend(const QString& name, SessionFactory make);
    // Switches to the named backend and rebuilds the program on it; false (and a status message) when
    // there is no such backend or it fails to start.
    bool setBackend(const QString& name);
    QString backend() const;

    // Loads a CUDA kernel (.cu) or an assembly program (.qasm) with `launchJson` as its launch spec, or
    // when that is empty NAME.json beside it if present, then builds it. Unsaved edits are offered for
    // saving first (false, nothing opened, when the user cancels).
    bool openProgram(const QString& path, const QString& launchJson = {});
    // The document is the source and its launch spec: Save writes the source and, when the launch was
    // edited, NAME.json beside it (each file whole or not at all). Save with no file yet asks for one.
    bool save();
    bool saveAs(const QString& path);  // both files at the new place; the window then edits them there
    bool isModified() const;           // the source or the launch changed since opened or saved
    QString filePath() const { return m_path; }
    // The panels back where a first run puts them: every panel shown, the editor at 80 columns or more
    // from 1280 pixels wide up.
    void resetLayout();
    // Adds the chat panel (a dock) over the app's engine; its cards open their launches here.
    void setChatEngine(std::unique_ptr<ChatEngine> engine);
    ChatPanel* chat() const { return m_chat; }
    // Compiles (CUDA) or assembles the editor text and loads it with the launch spec; shows errors at
    // their lines.
    bool build();
    // The single steps (and reset) run on the engine thread while the window waits for that one step; they
    // return with the step shown. Each first pauses a run in flight.
    void step();
    void stepToken();  // one token of the step the model is writing (other backends: a step)
    void stepBack();
    void stepBackToken();  // one token back (other backends: a step)
    // Moves to the moment the model had written `written` of its tokens (mid-step where that is inside one).
    void moveToToken(size_t written);
    void reset();
    // The runs continue on the engine thread after they return (running() meanwhile, the Debug actions that
    // would move the session disabled); the window shows their progress and where they stop. waitIdle()
    // waits for that; pause() stops them between two steps.
    void stepLine();           // steps until the next step runs code of another source line
    void runToLine(int line);  // 1-based: steps until the next step runs a block with code of the line
    void run();                // to a breakpoint, the end or the step limit
    void runBack();            // back to a breakpoint or the start
    void pause();
    bool running() const;
    void waitIdle();  // processes events until the run in flight (if any) has stopped and is shown
    // On a line without machine code the breakpoint goes to the next line with code, and the status says
    // so (as gdb and Visual Studio do); a build moves the breakpoints of lines that lost their code.
    void toggleBreakpoint(int line);  // 0-based editor line
    // Runs the launch on a second backend beside this one (the reference when this is another, else the
    // first other backend) and stops both at the first step where their machines differ; the Backend diff
    // panel lists the differences. A run like run() (running() meanwhile); false when there is no other
    // backend, nothing is loaded or the second backend fails to load.
    bool compareBackends();
    // Goes to a recorded step, forwards or backwards (the step and token lists call it): pauses a run in
    // flight, then moves as a run like run().
    void moveTo(int position);

    // For reading while no run is in flight (running() false): the engine thread steps it meanwhile.
    Session& session() { return *m_session; }
    const Program& program() const { return m_program; }  // as last built (before linking)
    QsciScintilla* editor() const { return m_editor; }
    LaunchPanel* launchPanel() const { return m_launch; }
    QPlainTextEdit* launchEditor() const { return m_launch->jsonEditor(); }
    RegisterView* registers() const { return m_registers; }
    MemoryView* memory() const { return m_memory; }
    SharedMemoryView* sharedMemory() const { return m_shared; }
    RomView* rom() const { return m_rom; }
    LayerView* layers() const { return m_layers; }
    QListWidget* events() const { return m_events; }
    QListWidget* tokens() const { return m_tokens; }  // the model backend's token stream
    QListWidget* diff() const { return m_diff; }      // the last backend comparison's verdict
    BackendDiffView* diffView() const { return m_diffView; }
    CodeViews* codeViews() const { return m_codeViews; }
    StateHeatmap* heatmap() const { return m_heatmap.get(); }
    DivergenceTimeline* timeline() const { return m_timeline.get(); }
    QString statusText() const;

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    void createActions();
    void createFileMenu();
    void createViewMenu();
    void fillViewMenu();         // a toggle for every panel and the toolbar, and Reset layout
    void freeEditorShortcuts();  // the editor's own key bindings that the window's actions use go
    void createDocks();
    QDockWidget* addDock(const QString& title, QWidget* w);
    void applyDefaultLayout();
    void restoreLayout();  // the last run's layout, else the default once the window has its size
    void saveLayout();
    // Offers to save unsaved edits: false when the user cancels (the caller then does nothing).
    bool maybeSave();
    bool writeDocument(const QString& path, bool withLaunch);
    void markClean();  // just opened or saved
    void updateTitle();
    // Builds again when the source or the launch changed since the last build; true when a program is
    // loaded afterwards. Every Debug action that moves the session calls it first.
    bool ensureBuilt();
    int nextLineWithCode(int line) const;  // 1-based; 0 when no line from `line` on has code
    void relocateBreakpoints();
    void populateExamples(QMenu* menu);
    void refresh();                            // takes the session lock: never call it holding the lock
    void refreshTokens();                      // the session lock held
    void showLayers(const TokenTrace& trace);  // the session lock held; an empty trace says why there is none
    int sourceLine(int block) const;           // the first source line of a block's code (0: none)
    void addRecentFile(const QString& path);
    void fillRecentMenu();
    // Runs on the engine thread until `arrived` holds before a step (or a breakpoint, the end, the step
    // limit). `arrived` is called there, with the session locked.
    void startRun(std::function<bool()> arrived, const QString& arrivedNote);
    // One engine call that takes a step, made on the engine thread while the window waits; then shown.
    void singleStep(const std::function<StopReason()>& call);
    // Starts a job on the engine thread (EngineThread::Job); `what` names it in the status bar while it runs
    // ("running on the reference backend").
    void startJob(std::function<bool()> step, std::function<void(bool paused, const QString& error)> done,
                  const QString& what);
    void showProgress();
    // Shows where a run stopped: `reason` (with `note` after the status) when it ended by itself.
    void finishRun(StopReason reason, bool paused, const QString& error, const QString& note = {});
    void updateActions();  // the actions that move the session are off while a job runs
    void showDiagnostics(const std::vector<Diagnostic>& diags);
    void unload();
    void showPtxOfFailedBuild();
    void setStatus(const QString& text);
    void report(StopReason r);
    std::set<Breakpoint> breakpointsFromMarkers() const;
    // The blocks with code on a line `atLine` accepts (in assembly also the block a label line starts).
    std::set<int> blocksAt(const std::function<bool(int line)>& atLine) const;

    std::unique_ptr<Session> m_session;
    QString m_builtSource, m_builtLaunch;  // what the last build read
    bool m_launchEdited = false;           // since opened or saved
    bool m_rebuilt = false;                // ensureBuilt built again: the next report says so
    std::vector<QDockWidget*> m_docks;     // every panel, for the View menu and the default layout
    Program m_program;
    MemoryMap m_map;
    QString m_path;
    QsciScintilla* m_editor;
    LaunchPanel* m_launch;
    CodeViews* m_codeViews;
    RegisterView* m_registers;
    MemoryView* m_memory;
    SharedMemoryView* m_shared;
    RomView* m_rom;
    LayerView* m_layers;
    QListWidget* m_events;
    QListWidget* m_tokens;
    QListWidget* m_diff;  // m_diffView's verdict
    BackendDiffView* m_diffView;
    QMenu* m_recent;
    QMenu* m_viewMenu = nullptr;
    LaunchSpec m_launchSpec;  // the loaded launch
    QDockWidget* m_tokenDock;
    QDockWidget* m_heatmapDock;
    ChatPanel* m_chat = nullptr;
    QComboBox* m_backendBox;
    std::vector<QAction*> m_moveActions;  // the Debug actions that move the session: off while a job runs
    QAction* m_pauseAction = nullptr;
    QString m_jobName;  // what the job in flight is doing, for its progress reports
    std::vector<std::pair<QString, SessionFactory>> m_backends;
    int m_backend = 0;
    QLabel* m_status;
    std::unique_ptr<DivergenceTimeline> m_timeline;
    ImGuiHost* m_timelineHost = nullptr;
    std::unique_ptr<StateHeatmap> m_heatmap;
    ImGuiHost* m_heatmapHost = nullptr;
    // Last, so that it goes first: its jobs use the session and the widgets above.
    std::unique_ptr<EngineThread> m_engine;
};

QString resourceDir();
// What the Backend diff panel says until a comparison runs.
inline const char* const kDiffHint = "Debug > Compare backends (Ctrl+D) runs this launch on two backends side by side.";
// Shows the rows from `first` on as not reached yet (grey italics: steps or tokens ahead of the debugger
// after it went back), the others as they were written.
void showReached(QListWidget* list, int first);
// Where a session stands, in the step list's numbering (its first step is step 0): "after step 4".
QString positionText(int position);  // $QGPU_RESOURCES, else the source tree's resources/

}  // namespace qgpu
