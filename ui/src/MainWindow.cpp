#include "qgpu/ui/MainWindow.h"

#include <QApplication>

#include <Qsci/qscicommand.h>
#include <Qsci/qscicommandset.h>
#include <Qsci/qsciscintilla.h>

#include <QAction>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLayout>
#include <QListWidget>
#include <QMenuBar>
#include <QPlainTextEdit>
#include <QStatusBar>
#include <QToolBar>

#include <algorithm>
#include <map>

#include "qgpu/core/Environment.h"
#include "qgpu/ui/BackendDiffView.h"
#include "qgpu/ui/ChatPanel.h"
#include "qgpu/ui/CodeViews.h"
#include "qgpu/ui/DivergenceTimeline.h"
#include "qgpu/ui/ImGuiHost.h"
#include "qgpu/ui/StateHeatmap.h"
#include "qgpu/ui/StateViews.h"

namespace qgpu {

namespace {

QString plainText(const QString& menuText) { return QString(menuText).remove('&'); }

}  // namespace

QString resourceDir() {
    std::optional<std::string> dir = environmentText("QGPU_RESOURCES");
    return dir ? QString::fromLocal8Bit(dir->c_str()) : QString(QGPU_RESOURCE_DIR);
}

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), m_debugger(std::make_unique<DebugController>()) {
    setWindowTitle("qgpu studio");
    m_debugger->setDocument([this] { return document(); });
    createEditor();
    m_status = new QLabel;
    m_status->setObjectName("statusLine");
    m_status->setMinimumWidth(0);
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // long text never widens the window
    statusBar()->addWidget(m_status, 1);
    createDocks();
    connect(qApp, &QApplication::focusChanged, this, [this](QWidget*, QWidget* now) { markFocusedPanel(now); });
    connect(m_launch, &LaunchPanel::edited, this, [this] {
        m_launchEdited = true;
        updateTitle();
    });
    createFileMenu();
    createActions();
    createViewMenu();
    freeEditorShortcuts();
    followDebugger();
    applyDefaultLayout();  // where the panels are: the restored layout replaces it, or the sizes follow
    // The window's minimum size was last taken while the panels were still added one below another.
    layout()->invalidate();
    layout()->activate();
    restoreLayout();
    updateTitle();
    setStatus("Open an example (Examples menu), a CUDA kernel or a .qasm program, then Build (Ctrl+B).");
}

MainWindow::~MainWindow() {
    // The focus moves while the panels are deleted, after this window's members are gone: stop following it.
    disconnect(qApp, &QApplication::focusChanged, this, nullptr);
    m_debugger.reset();     // first: a run in flight steps the session, and the views follow it
    delete m_timelineHost;  // the hosts draw the viewers: they must go before the viewers do
    delete m_heatmapHost;
}

void MainWindow::createActions() {
    populateExamples(menuBar()->addMenu("&Examples"));
    QMenu* debug = menuBar()->addMenu("&Debug");
    QToolBar* bar = addToolBar("Debug");
    bar->setObjectName("debugToolbar");
    auto add = [&](const QString& name, const QKeySequence& key, auto fn) {
        QAction* a = debug->addAction(name, key, this, fn);
        bar->addAction(a);
        return a;
    };
    // While a job runs on the engine thread, the actions that would move the session are off (Pause is the
    // way to stop it); Build and Reset stay on and stop the job first.
    DebugController* d = m_debugger.get();
    add("Build", QKeySequence("Ctrl+B"), [this] { build(); });
    m_moveActions.push_back(add("Run", QKeySequence(Qt::Key_F5), [d] { d->run(); }));
    m_pauseAction = add("Pause", QKeySequence(Qt::Key_Pause), [d] { d->pause(); });
    // As Nsight has them: F10 steps over to the next source line, F11 into the machine (one warp step).
    m_moveActions.push_back(add("Step line", QKeySequence(Qt::Key_F10), [d] { d->stepLine(); }));
    m_moveActions.push_back(add("Step", QKeySequence(Qt::Key_F11), [d] { d->step(); }));
    m_moveActions.push_back(add("Step token", QKeySequence("Alt+F10"), [d] { d->stepToken(); }));
    m_moveActions.push_back(add("Step back", QKeySequence("Shift+F10"), [d] { d->stepBack(); }));
    m_moveActions.push_back(
        debug->addAction("Step token back", QKeySequence("Alt+Shift+F10"), this, [d] { d->stepBackToken(); }));
    m_moveActions.push_back(debug->addAction("Run to cursor", QKeySequence("Ctrl+F10"), this, [this] {
        int line, col;
        m_editor->getCursorPosition(&line, &col);
        m_debugger->runToLine(line + 1);
    }));
    m_moveActions.push_back(add("Run back", QKeySequence("Shift+F5"), [d] { d->runBack(); }));
    add("Reset", QKeySequence("Ctrl+R"), [d] { d->reset(); });
    m_backendBox = new QComboBox;
    m_backendBox->setObjectName("backendBox");
    m_backendBox->setToolTip("Backend: the reference interpreter, or the GPU inside the model");
    m_backendBox->addItems(d->backends());
    connect(m_backendBox, &QComboBox::textActivated, this, [d](const QString& name) { d->setBackend(name); });
    bar->addSeparator();
    bar->addWidget(new QLabel(" Backend: "));
    bar->addWidget(m_backendBox);
    m_debugBuild = debug->addAction("Debug build (-O0 -g)", this, [this] { build(); });
    m_debugBuild->setObjectName("debugBuildAction");
    m_debugBuild->setCheckable(true);
    m_debugBuild->setToolTip(
        "Compile CUDA at -O0 -g, as nvcc -G: every variable keeps its place, for the Variables "
        "panel and the editor's hover. Some kernels do not fit the machine unoptimized.");
    m_moveActions.push_back(debug->addAction("Compare backends", QKeySequence("Ctrl+D"), this, [this] {
        if (m_debugger->compareBackends())
            if (auto* dock = findChild<QDockWidget*>("Backend diff")) dock->raise();
    }));
    m_moveActions.push_back(debug->addAction("Compare with a recorded run...", this, [this] {
        QString path = askForRun("Compare with a recorded run");
        if (!path.isEmpty() && compareWithRun(path))
            if (auto* dock = findChild<QDockWidget*>("Backend diff")) dock->raise();
    }));
    debug->addAction("Toggle breakpoint", QKeySequence(Qt::Key_F9), this, [this] {
        int line, col;
        m_editor->getCursorPosition(&line, &col);
        toggleBreakpoint(line);
    });
    // Tooltips name the shortcut, as the menus do.
    for (QAction* a : findChildren<QAction*>())
        if (!a->shortcut().isEmpty())
            a->setToolTip(plainText(a->text()) + " (" + a->shortcut().toString(QKeySequence::NativeText) + ")");
    m_pauseAction->setEnabled(false);
}

void MainWindow::freeEditorShortcuts() {
    // The editor takes a key it binds before the window's shortcut sees it (Ctrl+D would duplicate the line
    // instead of comparing backends): the window's keys are the window's.
    for (QAction* a : findChildren<QAction*>())
        for (const QKeySequence& key : a->shortcuts()) {
            if (key.isEmpty()) continue;
            int combined = key[0].toCombined();
            if (QsciCommand* c = m_editor->standardCommands()->boundTo(combined)) {
                if (c->key() == combined) c->setKey(0);
                if (c->alternateKey() == combined) c->setAlternateKey(0);
            }
        }
}

void MainWindow::populateExamples(QMenu* menu) {
    auto open = [this](QMenu* in, const QFileInfo& fi) {
        in->addAction(fi.fileName(), this, [this, path = fi.absoluteFilePath()] { openProgram(path); });
    };
    QMenu* examples = menu->addMenu("Examples");
    QDir exampleDir(resourceDir() + "/examples");
    for (const QFileInfo& fi : exampleDir.entryInfoList({"*.cu", "*.qasm"}, QDir::Files, QDir::Name))
        open(examples, fi);
    if (examples->isEmpty()) examples->addAction("(none found in " + exampleDir.path() + ")")->setEnabled(false);

    // The suite by topic (resources/kernel-topics.json); a kernel no topic lists goes under Other.
    QMenu* suite = menu->addMenu("Kernel suite");
    QDir kernelDir(resourceDir() + "/kernels");
    QFile topicsFile(resourceDir() + "/kernel-topics.json");
    QJsonObject topics;
    if (topicsFile.open(QIODevice::ReadOnly)) topics = QJsonDocument::fromJson(topicsFile.readAll()).object();
    QStringList listed;
    for (const QString& topic : topics.keys()) {
        QMenu* sub = suite->addMenu(topic);
        for (const QJsonValue& name : topics.value(topic).toArray()) {
            QFileInfo fi(kernelDir.filePath(name.toString() + ".cu"));
            if (fi.exists()) open(sub, fi);
            listed << fi.completeBaseName();
        }
    }
    QMenu* other = nullptr;
    for (const QFileInfo& fi : kernelDir.entryInfoList({"*.cu"}, QDir::Files, QDir::Name))
        if (!listed.contains(fi.completeBaseName())) open(other ? other : (other = suite->addMenu("Other")), fi);
    if (suite->isEmpty()) suite->addAction("(none found in " + kernelDir.path() + ")")->setEnabled(false);
}

void MainWindow::setChatEngine(std::unique_ptr<ChatEngine> engine) {
    m_chat = new ChatPanel(std::move(engine));
    m_chat->setObjectName("chatPanel");
    connect(m_chat, &ChatPanel::openLaunch, this, [this](const QString& path, const QString& launch) {
        if (openProgram(path, launch)) setStatus(statusText() + " (opened from the chat)");
    });
    QDockWidget* d = addDock("Chat", m_chat);
    // Where the saved layout had it, else beside Memory, leaving the registers room.
    QDockWidget* memory = findChild<QDockWidget*>("Memory");
    if (!restoreDockWidget(d) && memory) {
        tabifyDockWidget(memory, d);
        memory->raise();
    }
    fillViewMenu();
}

bool MainWindow::build() {
    m_editor->clearAnnotations();
    return m_debugger->build();
}

DebugSource MainWindow::document() const {
    DebugSource d;
    d.text = m_editor->text();
    d.fileName = m_path.isEmpty() ? QString("<editor>") : QFileInfo(m_path).fileName();
    d.cuda = m_cuda;
    d.launch = m_launch->text();
    // The form may hold what the JSON could not take (a word that is no number).
    if (!m_launch->valid()) d.launchProblem = m_launch->verdict();
    d.debugBuild = d.cuda && m_debugBuild->isChecked();
    return d;
}

QListWidget* MainWindow::diff() const { return m_diffView->verdict(); }

void MainWindow::setStatus(const QString& text) { m_status->setText(text); }
QString MainWindow::statusText() const { return m_status->text(); }

}  // namespace qgpu
