#include "qgpu/ui/MainWindow.h"

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

#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Assembler.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Encoding.h"
#include "qgpu/core/Environment.h"
#include "qgpu/core/Trace.h"
#include "qgpu/ui/BackendDiffView.h"
#include "qgpu/ui/ChatPanel.h"
#include "qgpu/ui/CodeViews.h"
#include "qgpu/ui/DivergenceTimeline.h"
#include "qgpu/ui/EngineThread.h"
#include "qgpu/ui/ImGuiHost.h"
#include "qgpu/ui/LayerView.h"
#include "qgpu/ui/RomView.h"
#include "qgpu/ui/StateHeatmap.h"
#include "qgpu/ui/StateViews.h"

namespace qgpu {

namespace {
constexpr int kBreakpointMarker = 1;
constexpr int kCurrentLineMarker = 2;
constexpr int kBreakpointMargin = 1;

bool isCuda(const QString& path) { return path.endsWith(".cu"); }

QString plainText(const QString& menuText) { return QString(menuText).remove('&'); }

// A __shared__ array's name as the kernel spells it: a function-local one is mangled in PTX
// ("_ZZ11tree_reducePKiPiE1s" holds "s").
std::string sourceName(const std::string& ptxName) {
    if (ptxName.rfind("_ZZ", 0) != 0) return ptxName;
    size_t e = ptxName.rfind('E');
    size_t digits = e == std::string::npos ? e : ptxName.find_first_not_of("0123456789", e + 1);
    if (digits == std::string::npos || digits == e + 1 || digits - e > 4) return ptxName;
    size_t length = std::stoul(ptxName.substr(e + 1, digits - e - 1));
    return digits + length == ptxName.size() ? ptxName.substr(digits) : ptxName;
}
}  // namespace

void showReached(QListWidget* list, int first) {
    for (int i = 0; i < list->count(); ++i) {
        QListWidgetItem* item = list->item(i);
        bool ahead = i >= first;
        if (item->font().italic() == ahead) continue;
        QFont f = item->font();
        f.setItalic(ahead);
        item->setFont(f);
        // The colour a row had when reached (fed tokens are grey) comes back when it is reached again.
        if (ahead) {
            item->setData(Qt::UserRole, item->data(Qt::ForegroundRole));
            item->setForeground(QColor(175, 175, 175));
        } else {
            item->setData(Qt::ForegroundRole, item->data(Qt::UserRole));
        }
    }
}

QString positionText(int position) {
    return position == 0 ? QString("at the start") : QString("after step %1").arg(position - 1);
}

QString resourceDir() {
    std::optional<std::string> dir = environmentText("QGPU_RESOURCES");
    return dir ? QString::fromLocal8Bit(dir->c_str()) : QString(QGPU_RESOURCE_DIR);
}

MainWindow::MainWindow(QWidget* parent)
    : QMainWindow(parent), m_session(makeReferenceSession()), m_engine(std::make_unique<EngineThread>()) {
    setWindowTitle("qgpu studio");
    m_backends.push_back({"reference", [] { return makeReferenceSession(); }});
    connect(m_engine.get(), &EngineThread::progress, this, [this] { showProgress(); });
    m_editor = new QsciScintilla;
    m_editor->setObjectName("sourceEditor");
    m_editor->setUtf8(true);
    m_editor->setFont(QFont("Monospace", 10));
    m_editor->setMarginType(0, QsciScintilla::NumberMargin);
    m_editor->setMarginWidth(0, "00000");
    m_editor->setMarginType(kBreakpointMargin, QsciScintilla::SymbolMargin);
    m_editor->setMarginWidth(kBreakpointMargin, 16);
    m_editor->setMarginSensitivity(kBreakpointMargin, true);
    m_editor->markerDefine(QsciScintilla::Circle, kBreakpointMarker);
    m_editor->setMarkerBackgroundColor(QColor(220, 50, 50), kBreakpointMarker);
    m_editor->markerDefine(QsciScintilla::Background, kCurrentLineMarker);
    m_editor->setMarkerBackgroundColor(QColor(255, 240, 150), kCurrentLineMarker);
    m_editor->setAnnotationDisplay(QsciScintilla::AnnotationBoxed);
    connect(m_editor, &QsciScintilla::marginClicked, this, [this](int margin, int line, Qt::KeyboardModifiers) {
        if (margin == kBreakpointMargin) toggleBreakpoint(line);
    });
    connect(m_editor, &QsciScintilla::cursorPositionChanged, this,
            [this](int line, int) { m_codeViews->selectSourceLine(line + 1); });
    connect(m_editor, &QsciScintilla::modificationChanged, this, [this] { updateTitle(); });
    setCentralWidget(m_editor);

    m_status = new QLabel;
    m_status->setObjectName("statusLine");
    m_status->setMinimumWidth(0);
    m_status->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // long text never widens the window
    statusBar()->addWidget(m_status, 1);
    createDocks();
    connect(m_launch, &LaunchPanel::edited, this, [this] {
        m_launchEdited = true;
        updateTitle();
    });
    createFileMenu();
    createActions();
    createViewMenu();
    freeEditorShortcuts();
    applyDefaultLayout();  // where the panels are: the restored layout replaces it, or the sizes follow
    // The window's minimum size was last taken while the panels were still added one below another.
    layout()->invalidate();
    layout()->activate();
    restoreLayout();
    updateTitle();
    setStatus("Open an example (Examples menu), a CUDA kernel or a .qasm program, then Build (Ctrl+B).");
}

MainWindow::~MainWindow() {
    m_engine.reset();       // first: a run in flight steps the session and reads the program
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
    add("Build", QKeySequence("Ctrl+B"), [this] { build(); });
    m_moveActions.push_back(add("Run", QKeySequence(Qt::Key_F5), [this] { run(); }));
    m_pauseAction = add("Pause", QKeySequence(Qt::Key_Pause), [this] { pause(); });
    m_moveActions.push_back(add("Step", QKeySequence(Qt::Key_F10), [this] { step(); }));
    m_moveActions.push_back(add("Step token", QKeySequence("Alt+F10"), [this] { stepToken(); }));
    m_moveActions.push_back(add("Step line", QKeySequence(Qt::Key_F11), [this] { stepLine(); }));
    m_moveActions.push_back(add("Step back", QKeySequence("Shift+F10"), [this] { stepBack(); }));
    m_moveActions.push_back(
        debug->addAction("Step token back", QKeySequence("Alt+Shift+F10"), this, [this] { stepBackToken(); }));
    m_moveActions.push_back(debug->addAction("Run to cursor", QKeySequence("Ctrl+F10"), this, [this] {
        int line, col;
        m_editor->getCursorPosition(&line, &col);
        runToLine(line + 1);
    }));
    m_moveActions.push_back(add("Run back", QKeySequence("Shift+F5"), [this] { runBack(); }));
    add("Reset", QKeySequence("Ctrl+R"), [this] { reset(); });
    m_backendBox = new QComboBox;
    m_backendBox->setObjectName("backendBox");
    m_backendBox->setToolTip("Backend: the reference interpreter, or the GPU inside the model");
    m_backendBox->addItem(m_backends.front().first);
    connect(m_backendBox, &QComboBox::textActivated, this, [this](const QString& name) { setBackend(name); });
    bar->addSeparator();
    bar->addWidget(new QLabel(" Backend: "));
    bar->addWidget(m_backendBox);
    m_moveActions.push_back(
        debug->addAction("Compare backends", QKeySequence("Ctrl+D"), this, [this] { compareBackends(); }));
    debug->addAction("Toggle breakpoint", QKeySequence(Qt::Key_F9), this, [this] {
        int line, col;
        m_editor->getCursorPosition(&line, &col);
        toggleBreakpoint(line);
    });
    // Tooltips name the shortcut, as the menus do.
    for (QAction* a : findChildren<QAction*>())
        if (!a->shortcut().isEmpty())
            a->setToolTip(plainText(a->text()) + " (" + a->shortcut().toString(QKeySequence::NativeText) + ")");
    updateActions();
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

void MainWindow::addBackend(const QString& name, SessionFactory make) {
    m_backends.push_back({name, std::move(make)});
    m_backendBox->addItem(name);
}

QString MainWindow::backend() const { return m_backends[size_t(m_backend)].first; }

bool MainWindow::setBackend(const QString& name) {
    pause();
    for (size_t i = 0; i < m_backends.size(); ++i) {
        if (m_backends[i].first != name) continue;
        try {
            std::unique_ptr<Session> made = m_backends[i].second();  // may wait behind a progress dialog
            pause();  // a run started meanwhile ends before its session goes
            m_session = std::move(made);
        } catch (const std::exception& e) {
            m_backendBox->setCurrentText(backend());
            setStatus("The " + name + " backend did not start: " + QString::fromUtf8(e.what()));
            return false;
        }
        m_backend = int(i);
        m_backendBox->setCurrentText(name);
        m_events->clear();
        m_tokens->clear();
        m_heatmap->clear();  // it read the previous session
        bool built = m_path.isEmpty() || build();
        // A backend with tokens and a recurrent state (build() left the engine idle: no lock needed).
        if (built && !m_session->tokens().fed.empty()) {
            m_tokenDock->raise();
            m_heatmapDock->raise();
        }
        return built;
    }
    setStatus("There is no backend named " + name + ".");
    return false;
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
    pause();
    m_editor->clearAnnotations();
    m_builtSource = m_editor->text();
    m_builtLaunch = m_launch->text();
    std::string file = m_path.isEmpty() ? "<editor>" : QFileInfo(m_path).fileName().toStdString();
    try {
        Program program;
        std::string ptx;
        std::vector<LineMapEntry> lineMap;
        std::vector<SharedMemoryView::Array> sharedArrays;
        if (isCuda(m_path)) {
            CompiledKernel k = compileKernel(m_editor->text().toStdString(), file);
            program = std::move(k.kernel.program);
            ptx = std::move(k.ptx);
            lineMap = std::move(k.kernel.lineMap);
            for (const SharedPlacement& a : k.kernel.shared)
                sharedArrays.push_back({QString::fromStdString(sourceName(a.name)), a.base, a.words});
        } else {
            program = assemble(m_editor->text().toStdString(), file);
        }
        m_codeViews->show(program, ptx, lineMap);
        if (!m_launch->valid())  // the form may hold what the JSON could not take (a word that is no number)
            throw DiagnosticError(Diagnostic{"launch", 0, 0, m_launch->verdict().toStdString()});
        LaunchSpec launch = parseLaunchSpec(m_launch->text().toStdString(), "launch spec");
        LinkedLaunch linked = linkLaunch(program, launch);
        // Only a successful load replaces what the window shows. On the engine thread, like every call
        // that changes the session (a backend may keep per-thread state).
        m_engine->call([&] { m_session->load(program, launch); });
        // The words the compiler produced, for the ROM view to hold the backend's against.
        std::vector<std::vector<uint64_t>> compiledRom;
        for (const Block& b : linked.program.blocks)
            compiledRom.push_back(encodeBlock(b, MachineSpec::standard().slotsPerBlock));
        m_rom->setRom(m_session->rom(), compiledRom, backend());
        m_shared->setProgram(program.sharedWords, std::move(sharedArrays));
        m_registers->setProgram(program);
        m_program = std::move(program);
        m_map = std::move(linked.map);
        m_launchSpec = std::move(launch);
        m_events->clear();
        m_tokens->clear();
        m_timeline->clear();
        m_diff->clear();  // it compared the previous program
        m_diff->addItem(kDiffHint);
        m_diffView->clearMachines();
    } catch (const DiagnosticError& e) {
        unload();
        showDiagnostics(e.diagnostics());
        showPtxOfFailedBuild();
        return false;
    } catch (const std::exception& e) {  // a library failure must never escape into Qt
        unload();
        showDiagnostics({Diagnostic{"", 0, 0, std::string("internal error while building: ") + e.what()}});
        return false;
    }
    setStatus(QString("Built %1 blocks; ready to run (F5) or step (F10).").arg(m_program.blocks.size()));
    relocateBreakpoints();
    m_session->breakpoints = breakpointsFromMarkers();  // the engine is idle: pause() above
    refresh();
    return true;
}

bool MainWindow::ensureBuilt() {
    if (m_editor->text() == m_builtSource && m_launch->text() == m_builtLaunch) return m_session->loaded();
    m_rebuilt = build();
    return m_rebuilt;
}

void MainWindow::showPtxOfFailedBuild() {
    // A kernel that compiled but could not be lowered: its message may cite a PTX line, so the PTX stays.
    if (!isCuda(m_path)) return;
    CudaCompileResult r = compileCudaToPtx(m_editor->text().toStdString(), QFileInfo(m_path).fileName().toStdString());
    if (r.ok) m_codeViews->show(Program{}, r.ptx, {});
}

void MainWindow::unload() {
    m_heatmap->clear();
    std::unique_ptr<Session> made;
    try {  // never keep running the previous kernel under new source
        made = m_backends[size_t(m_backend)].second();
    } catch (const std::exception&) {
        made = makeReferenceSession();
    }
    pause();  // the factory may have let a run start: it ends before its session goes
    m_session = std::move(made);
    m_program = {};
    m_events->clear();
    m_tokens->clear();
    m_codeViews->clear();
    m_timeline->clear();
    m_rom->clear();
    m_layers->clear();
    m_shared->setProgram(0, {});
    m_registers->setProgram({});
}

void MainWindow::showDiagnostics(const std::vector<Diagnostic>& diags) {
    std::map<int, QString> perLine;
    for (const auto& d : diags)
        if (d.line > 0)
            perLine[d.line - 1] += (perLine[d.line - 1].isEmpty() ? "" : "\n") + QString::fromStdString(d.message);
    for (const auto& [line, text] : perLine) m_editor->annotate(line, text, 0);
    setStatus(QString::fromStdString(formatAll(diags)));
}

std::set<Breakpoint> MainWindow::breakpointsFromMarkers() const {
    // A block breaks on every source line it holds code of; in assembly also on its label line.
    std::set<Breakpoint> out;
    for (int b :
         blocksAt([&](int line) { return line > 0 && (m_editor->markersAtLine(line - 1) & (1 << kBreakpointMarker)); }))
        out.insert({b, -1});
    return out;
}

std::set<int> MainWindow::blocksAt(const std::function<bool(int line)>& atLine) const {
    std::set<int> out;
    for (size_t b = 0; b < m_program.blocks.size(); ++b) {
        const Block& blk = m_program.blocks[b];
        bool hit = atLine(blk.labelLoc.line) || atLine(blk.terminatorLoc.line);
        for (const auto& loc : blk.bodyLocs) hit = hit || atLine(loc.line);
        if (hit) out.insert(int(b));
    }
    return out;
}

int MainWindow::nextLineWithCode(int line) const {
    std::set<int> lines;
    blocksAt([&](int l) {
        if (l >= line) lines.insert(l);
        return false;
    });
    return lines.empty() ? 0 : *lines.begin();
}

void MainWindow::toggleBreakpoint(int line) {
    QString moved;
    if (m_editor->markersAtLine(line) & (1 << kBreakpointMarker)) {
        m_editor->markerDelete(line, kBreakpointMarker);
    } else if (m_program.blocks.empty() || !blocksAt([line](int l) { return l == line + 1; }).empty()) {
        m_editor->markerAdd(line, kBreakpointMarker);  // before a build every line may hold code
    } else if (int to = nextLineWithCode(line + 1); to == 0) {
        return setStatus(
            QString("Line %1 has no machine code, nor does any line after it: no breakpoint set.").arg(line + 1));
    } else {
        m_editor->markerAdd(to - 1, kBreakpointMarker);
        moved = QString("Line %1 has no machine code: the breakpoint is on line %2, the next line with code.")
                    .arg(line + 1)
                    .arg(to);
    }
    if (!moved.isEmpty()) setStatus(moved);
    std::set<Breakpoint> breakpoints = breakpointsFromMarkers();
    auto lock = m_engine->lock();  // a run in flight reads them between its steps
    m_session->breakpoints = std::move(breakpoints);
}

void MainWindow::relocateBreakpoints() {
    QStringList moves;
    for (int line = m_editor->markerFindNext(0, 1 << kBreakpointMarker); line >= 0;
         line = m_editor->markerFindNext(line + 1, 1 << kBreakpointMarker)) {
        if (!blocksAt([line](int l) { return l == line + 1; }).empty()) continue;
        m_editor->markerDelete(line, kBreakpointMarker);
        int to = nextLineWithCode(line + 1);
        if (to > 0) m_editor->markerAdd(to - 1, kBreakpointMarker);
        moves << (to > 0 ? QString("%1 to %2").arg(line + 1).arg(to) : QString("%1 removed").arg(line + 1));
    }
    if (!moves.isEmpty())
        setStatus(statusText() + " Breakpoints on lines without code moved: " + moves.join(", ") + ".");
}

int MainWindow::sourceLine(int block) const {
    if (block < 0 || block >= int(m_program.blocks.size())) return 0;
    const Block& b = m_program.blocks[size_t(block)];
    return b.bodyLocs.empty() ? b.terminatorLoc.line : b.bodyLocs.front().line;
}

void MainWindow::report(StopReason r) {
    auto lock = m_engine->lock();
    const MachineState& s = m_session->snapshot();
    QString where = positionText(m_session->position());
    switch (r) {
        case StopReason::Finished: {
            // The arrays in short (the Memory panel has them whole), then the verdict on "expect".
            std::vector<std::string> bad = expectationMismatches(s, m_launchSpec, m_map);
            QString verdict = m_launchSpec.expect.empty() ? QString()
                              : bad.empty()               ? QString(" Every expected array matches.")
                                                          : " NOT AS EXPECTED: " + QString::fromStdString(bad.front()) +
                                                  (bad.size() > 1 ? QString(" (and %1 more)").arg(bad.size() - 1) : "");
            setStatus(where + ": the launch finished. " + QString::fromStdString(summarizeArrays(s, m_map)) + verdict);
            break;
        }
        case StopReason::Faulted: {
            int block = m_session->history().empty() ? -1 : m_session->history().back().block;
            setStatus(where + ": machine fault: " + QString::fromStdString(locatedFault(m_program, block, s.fault)));
            break;
        }
        case StopReason::Breakpoint: setStatus(where + ": stopped at a breakpoint."); break;
        case StopReason::StepLimit:
            setStatus(where + ": stopped after the step limit; the kernel may loop forever.");
            break;
        case StopReason::AtStart: setStatus("At the start of the launch."); break;
        case StopReason::Step: setStatus(where); break;
    }
    if (m_rebuilt) setStatus(statusText() + " (built again first: the source or the launch had changed)");
    m_rebuilt = false;
    lock.unlock();
    refresh();
}

void MainWindow::refresh() {
    auto lock = m_engine->lock();  // the engine steps on between two refreshes, never during one
    if (!m_session->loaded()) return;
    const MachineState& s = m_session->snapshot();
    const auto& history = m_session->history();
    int pos = m_session->position();
    const StepEvent* last = pos > 0 ? &history[size_t(pos - 1)] : nullptr;
    NextStep next = m_session->peek();
    if (last && next.warp < 0)
        m_registers->setWarp(last->warp);
    else if (next.warp >= 0)
        m_registers->setWarp(next.warp);
    m_registers->show(s, last);
    m_memory->show(s, m_map, last);
    m_shared->show(s, last);
    m_rom->showWarps(s);

    // Recorded events never change, so the list only grows (it is cleared when a new program loads).
    if (m_events->count() > int(history.size())) m_events->clear();
    for (size_t i = size_t(m_events->count()); i < history.size(); ++i)
        m_events->addItem(QString::fromStdString(formatEvent(history[i], m_program, s.lanesPerWarp)).trimmed());
    if (pos > 0) m_events->setCurrentRow(pos - 1);
    showReached(m_events, pos);

    m_editor->markerDeleteAll(kCurrentLineMarker);
    m_codeViews->markCurrentBlock(next.warp >= 0 ? next.block : -1);
    if (next.warp >= 0) {
        int line = sourceLine(next.block);
        if (line > 0) {
            m_editor->markerAdd(line - 1, kCurrentLineMarker);
            m_editor->ensureLineVisible(line - 1);
        }
    }
    m_timeline->setData(history, pos, s);
    m_timelineHost->update();
    // The token going in, run through the model once for the panels on screen that show it (not during a
    // run: a trace costs a model step).
    bool heatmap = m_heatmapHost->isVisible(), layers = m_layers->isVisible();
    TokenTrace trace = (heatmap || layers) && !running() ? m_session->tokenTrace() : TokenTrace{};
    if (heatmap) {
        m_heatmap->show(*m_session, trace, [this] { return m_engine->lock(); });
        m_heatmapHost->update();
    }
    if (layers) showLayers(trace);
    refreshTokens();
}

void MainWindow::showLayers(const TokenTrace& trace) {
    if (trace.layers.empty()) {
        bool ended = m_session->snapshot().run != RunState::Running;
        return m_layers->showUnavailable(m_session->stateLayout().layers > 0
                                             ? (ended ? "The launch has ended: no token goes in." : "Running...")
                                             : "The " + backend() +
                                                   " backend runs no model: choose the model backend.");
    }
    const Session& session = *m_session;
    m_layers->show(trace, session.residualFields(), session.stateLayout(),
                   [&session](int layer, int head, int row) { return session.rowMeaning(layer, head, row); });
}

void MainWindow::refreshTokens() {
    TokenStream ts = m_session->tokens();
    if (ts.fed.empty()) {
        if (m_tokens->count() == 0)
            m_tokens->addItem("The " + backend() + " backend writes no tokens: choose the model backend to see them.");
        return;
    }
    // The stream only grows while a program stays loaded (the list is cleared when one loads).
    size_t total = ts.fed.size() + ts.written.size();
    if (size_t(m_tokens->count()) > total || (m_tokens->count() > 0 && m_tokens->item(0)->text().startsWith("The ")))
        m_tokens->clear();
    for (size_t i = size_t(m_tokens->count()); i < total; ++i) {
        bool fed = i < ts.fed.size();
        auto* item =
            new QListWidgetItem(QString("%1 %2  %3")
                                    .arg(fed ? "fed    " : "written")
                                    .arg(fed ? i : i - ts.fed.size(), 5)
                                    .arg(QString::fromStdString(fed ? ts.fed[i] : ts.written[i - ts.fed.size()])));
        if (fed) item->setForeground(QColor(120, 120, 120));
        m_tokens->addItem(item);
    }
    int current = int(ts.fed.size() + ts.writtenNow) - 1;  // the last token of the current moment
    m_tokens->setCurrentRow(current);
    showReached(m_tokens, current + 1);
    if (current >= 0) m_tokens->scrollToItem(m_tokens->item(current));
}

void MainWindow::setStatus(const QString& text) { m_status->setText(text); }
QString MainWindow::statusText() const { return m_status->text(); }

}  // namespace qgpu
