// qgpu studio's main window: the document (the editor and the launch spec), docks, menus and actions. The
// debugger (DebugController) owns the session and every move; the panels subscribe to it.
#pragma once

#include <QMainWindow>
#include <QPointer>
#include <memory>
#include <vector>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/LaunchPanel.h"
#include "qgpu/ui/StepListView.h"
#include "qgpu/ui/TokenStreamView.h"

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
class ResultsView;
class ProblemsView;
class OutputView;
class VariablesView;
class WarpsView;
class WatchView;
class HistoryView;
class BreakpointsView;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;  // ends a run in flight between two steps and joins the engine thread

    // The debugger: backends, steps, runs, moves and what they show (the Debug menu's actions call it).
    DebugController& debugger() { return *m_debugger; }

    // Loads a CUDA kernel (.cu) or an assembly program (.qasm) with `launchJson` as its launch spec, or
    // when that is empty NAME.json beside it if present, then builds it. Unsaved edits are offered for
    // saving first (false, nothing opened, when the user cancels).
    bool openProgram(const QString& path, const QString& launchJson = {});
    // The document is the source and its launch spec: Save writes the source and, when the launch was
    // edited, NAME.json beside it (each file whole or not at all). Save with no file yet asks for one.
    bool save();
    // Both files at the new place; the window then edits them there. Never into the installation: the shipped
    // examples and suite kernels stay as installed (Save on one of them asks where its copy goes).
    bool saveAs(const QString& path);
    void newKernel();  // File > New: a CUDA kernel from a template, its launch from its signature
    // File > Open Run: a run saved by File > Save Run (DebugController::saveRun). Its source and launch become
    // a new document without a file, and the debugger replays the recording. False (the status says why)
    // when the file is not a run or does not fit the kernel as built now.
    bool openRun(const QString& path);
    // Debug > Compare with a recorded run: the session in hand against the run in the file, step by step.
    bool compareWithRun(const QString& path);
    bool isModified() const;  // the source or the launch changed since opened or saved
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
    // On a line without machine code the breakpoint goes to the next line with code, and the status says
    // so (as gdb and Visual Studio do); a build moves the breakpoints of lines that lost their code.
    void toggleBreakpoint(int line);  // 0-based editor line

    QsciScintilla* editor() const { return m_editor; }
    LaunchPanel* launchPanel() const { return m_launch; }
    QPlainTextEdit* launchEditor() const { return m_launch->jsonEditor(); }
    RegisterView* registers() const { return m_registers; }
    MemoryView* memory() const { return m_memory; }
    SharedMemoryView* sharedMemory() const { return m_shared; }
    RomView* rom() const { return m_rom; }
    LayerView* layers() const { return m_layers; }
    StepListView* events() const { return m_events; }
    TokenStreamView* tokens() const { return m_tokens; }  // the model backend's token stream
    QListWidget* diff() const;                            // the last backend comparison's verdict
    BackendDiffView* diffView() const { return m_diffView; }
    ResultsView* results() const { return m_results; }
    ProblemsView* problems() const { return m_problems; }
    OutputView* output() const { return m_output; }
    VariablesView* variables() const { return m_variables; }
    WarpsView* warps() const { return m_warps; }
    WatchView* watch() const { return m_watch; }
    HistoryView* history() const { return m_history; }
    BreakpointsView* breakpoints() const { return m_breakpoints; }
    CodeViews* codeViews() const { return m_codeViews; }
    StateHeatmap* heatmap() const { return m_heatmap.get(); }
    DivergenceTimeline* timeline() const { return m_timeline.get(); }
    QString statusText() const;
    // The panel that holds the keyboard focus ("" for the editor or none); its title bar is drawn in the
    // highlight colour, the window's focus ring.
    QString focusedPanel() const;

protected:
    void closeEvent(QCloseEvent* e) override;

private:
    void createEditor();
    void createActions();
    void createFileMenu();
    void createViewMenu();
    void fillViewMenu();         // a toggle for every panel and the toolbar, and Reset layout
    void freeEditorShortcuts();  // the editor's own key bindings that the window's actions use go
    void createDocks();
    void markFocusedPanel(QWidget* now);  // the focus ring: the title bar of the panel holding `now`
    void createModelViews();              // the ImGui viewers and Layers, which read the model's session itself
    void followDebugger();                // the editor, status bar, backend box and model views
    QDockWidget* addDock(const QString& title, QWidget* w);
    void applyDefaultLayout();
    void keepTabNames();   // the tabs of grouped panels keep their whole names
    void restoreLayout();  // the last run's layout, else the default once the window has its size
    void saveLayout();
    // Offers to save unsaved edits: false when the user cancels (the caller then does nothing).
    bool maybeSave();
    bool writeDocument(const QString& path, bool withLaunch);
    void markClean();  // just opened or saved
    void updateTitle();
    void setCudaLexer();                      // highlighting as the document's language
    QString askWhereToSave();                 // a file dialog; "" when the user cancels
    QString askForRun(const QString& title);  // a file dialog for a recorded run; "" when the user cancels
    std::shared_ptr<const RecordedRun> readRun(const QString& path);  // nullptr: the status says why
    DebugSource document() const;                                     // what a build reads
    void populateExamples(QMenu* menu);
    void showBuild(bool ok);
    void showMoment();                            // the editor's current line and the ImGui viewers
    void showModelViews(const DebugSnapshot& s);  // asks for the trace the heatmap and Layers show
    void showTrace();                             // draws it there when it comes
    void drawTrace(const TokenTrace& trace);      // the engine idle: the heatmap and Layers at the moment shown
    void showLayers(const TokenTrace& trace);     // the session lock held; an empty trace says why there is none
    void showBreakpoints();
    void showSourceLine(int line);                     // 1-based: the editor's cursor goes there
    void showVariableTip(int position, int x, int y);  // the variable under the mouse, in every thread
    void syncBreakpoints();  // the editor's markers, moved by edits, become the debugger's breakpoints
    // Each document's breakpoints (line, on or off, condition) are kept between sessions, by its path.
    void saveBreakpoints() const;
    std::map<int, SourceBreakpoint> savedBreakpoints(const QString& path) const;
    void addRecentFile(const QString& path);
    void fillRecentMenu();
    void showDiagnostics(const std::vector<Diagnostic>& diags);
    void setStatus(const QString& text);

    bool m_launchEdited = false;          // since opened or saved
    QPointer<QDockWidget> m_focusedDock;  // the panel with the focus ring
    std::vector<QDockWidget*> m_docks;    // every panel, for the View menu and the default layout
    QString m_path;
    bool m_cuda = false;  // the document is CUDA (else qasm), also before it has a file
    QString m_raisedFor;  // the backend whose token and state panels were raised
    QsciScintilla* m_editor;
    LaunchPanel* m_launch;
    CodeViews* m_codeViews;
    RegisterView* m_registers;
    MemoryView* m_memory;
    SharedMemoryView* m_shared;
    RomView* m_rom;
    LayerView* m_layers;
    StepListView* m_events;
    TokenStreamView* m_tokens;
    ResultsView* m_results;
    ProblemsView* m_problems;
    OutputView* m_output;
    VariablesView* m_variables;
    WarpsView* m_warps;
    WatchView* m_watch;
    HistoryView* m_history;
    BreakpointsView* m_breakpoints;
    QDockWidget* m_variablesDock;
    QAction* m_debugBuild = nullptr;  // CUDA at -O0 -g
    BackendDiffView* m_diffView;
    QMenu* m_recent;
    QMenu* m_viewMenu = nullptr;
    QDockWidget* m_tokenDock;
    QDockWidget* m_heatmapDock;
    QDockWidget* m_resultsDock;
    ChatPanel* m_chat = nullptr;
    QComboBox* m_backendBox;
    std::vector<QAction*> m_moveActions;  // the Debug actions that move the session: off while a job runs
    QAction* m_pauseAction = nullptr;
    QLabel* m_status;
    std::unique_ptr<DivergenceTimeline> m_timeline;
    ImGuiHost* m_timelineHost = nullptr;
    std::unique_ptr<StateHeatmap> m_heatmap;
    ImGuiHost* m_heatmapHost = nullptr;
    // Last, so that it goes first: its jobs use the session, and the views follow it.
    std::unique_ptr<DebugController> m_debugger;
};

QString resourceDir();  // $QGPU_RESOURCES, else the source tree's resources/

}  // namespace qgpu
