// The window's side of the debugger: the editor's marks (errors, breakpoints, the current line), the status
// bar, the Debug actions and backend box, and the ImGui viewers and Layers view, which read the model itself.
#include <Qsci/qsciscintilla.h>

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QSettings>
#include <QShortcut>
#include <QToolTip>
#include <map>

#include "qgpu/ui/CodeViews.h"
#include "qgpu/ui/DivergenceTimeline.h"
#include "qgpu/ui/ImGuiHost.h"
#include "qgpu/ui/LayerView.h"
#include "qgpu/ui/MainWindow.h"
#include "qgpu/ui/StateHeatmap.h"
#include "qgpu/ui/VariablesView.h"

namespace qgpu {

namespace {
constexpr int kBreakpointMarker = 1;
constexpr int kCurrentLineMarker = 2;
constexpr int kOtherLanesMarker = 3;  // where the next warp's other running lanes stand (divergence)
constexpr int kBreakpointMargin = 1;
}  // namespace

void MainWindow::createEditor() {
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
    m_editor->markerDefine(QsciScintilla::Background, kOtherLanesMarker);
    m_editor->setMarkerBackgroundColor(QColor(205, 225, 250), kOtherLanesMarker);
    m_editor->setAnnotationDisplay(QsciScintilla::AnnotationBoxed);
    connect(m_editor, &QsciScintilla::marginClicked, this, [this](int margin, int line, Qt::KeyboardModifiers) {
        if (margin == kBreakpointMargin) toggleBreakpoint(line);
    });
    connect(m_editor, &QsciScintilla::cursorPositionChanged, this,
            [this](int line, int) { m_codeViews->selectSourceLine(line + 1); });
    connect(m_editor, &QsciScintilla::modificationChanged, this, [this] { updateTitle(); });
    connect(m_editor, &QsciScintilla::textChanged, this, [this] { syncBreakpoints(); });
    m_editor->SendScintilla(QsciScintillaBase::SCI_SETMOUSEDWELLTIME, 400);
    connect(m_editor, &QsciScintillaBase::SCN_DWELLSTART, this, &MainWindow::showVariableTip);
    connect(m_editor, &QsciScintillaBase::SCN_DWELLEND, this, [] { QToolTip::hideText(); });
    // Tab indents, as in any editor; Ctrl+Tab and Ctrl+Shift+Tab leave the editor for the next or the previous
    // panel, as Qt's text editors do.
    for (bool forward : {true, false}) {
        QKeySequence keys(forward ? Qt::CTRL | Qt::Key_Tab : Qt::CTRL | Qt::SHIFT | Qt::Key_Backtab);
        auto* leave = new QShortcut(keys, m_editor, nullptr, nullptr, Qt::WidgetShortcut);
        connect(leave, &QShortcut::activated, this, [this, forward] { focusNextPrevChild(forward); });
    }
    setCentralWidget(m_editor);
}

void MainWindow::followDebugger() {
    DebugController* d = m_debugger.get();
    connect(d, &DebugController::statusChanged, this, [this](const QString& text) { setStatus(text); });
    connect(d, &DebugController::built, this, [this](bool ok) { showBuild(ok); });
    connect(d, &DebugController::moved, this, [this] { showMoment(); });
    connect(d, &DebugController::traced, this, &MainWindow::showTrace);
    connect(d, &DebugController::breakpointsChanged, this, [this] {
        showBreakpoints();
        saveBreakpoints();
    });
    connect(d, &DebugController::runStateChanged, this, [this](bool running) {
        for (QAction* a : m_moveActions) a->setEnabled(!running);  // Pause is the way to stop a run
        m_pauseAction->setEnabled(running);
    });
    connect(d, &DebugController::backendsChanged, this, [this, d] {
        m_backendBox->clear();
        m_backendBox->addItems(d->backends());
        m_backendBox->setCurrentText(d->backend());
    });
    connect(d, &DebugController::backendChanged, this, [this, d] {
        m_backendBox->setCurrentText(d->backend());
        m_heatmap->clear();  // it read the previous session
    });
}

void MainWindow::showBuild(bool ok) {
    m_editor->clearAnnotations();
    const BuiltProgram& built = m_debugger->lastBuild();
    m_launch->setSignature(built.program.params);
    std::vector<int> lines;
    for (int b = 0; b < int(built.program.blocks.size()); ++b) lines.push_back(built.sourceLine(b));
    m_timeline->setLines(std::move(lines));
    m_timeline->clear();
    if (!ok) {
        m_heatmap->clear();
        m_layers->clear();
        return showDiagnostics(m_debugger->lastBuild().diagnostics);
    }
    // A backend with tokens and a recurrent state: its panels come to the front the first time it loads.
    QString backend = m_debugger->backend();
    if (backend != m_raisedFor && !m_debugger->snapshot()->tokens.fed.empty()) {
        m_tokenDock->raise();
        m_heatmapDock->raise();
    }
    m_raisedFor = backend;
    if (!m_debugger->lastBuild().program.variables.empty()) m_variablesDock->raise();
}

void MainWindow::showDiagnostics(const std::vector<Diagnostic>& diags) {
    std::map<int, QString> perLine;
    for (const auto& d : diags)
        if (d.line > 0)
            perLine[d.line - 1] += (perLine[d.line - 1].isEmpty() ? "" : "\n") + QString::fromStdString(d.message);
    for (const auto& [line, text] : perLine) m_editor->annotate(line, text, 0);
}

void MainWindow::showMoment() {
    std::shared_ptr<const DebugSnapshot> s = m_debugger->snapshot();
    m_editor->markerDeleteAll(kCurrentLineMarker);
    m_editor->markerDeleteAll(kOtherLanesMarker);
    if (!s->loaded) return;
    if (s->stop == StopReason::Finished || s->stop == StopReason::Faulted) m_resultsDock->raise();  // the answer
    if (s->next.warp >= 0) {
        int line = s->build->sourceLine(s->next.block);
        if (line > 0) {
            m_editor->markerAdd(line - 1, kCurrentLineMarker);
            m_editor->ensureLineVisible(line - 1);
        }
        // The warp's lanes that do not run next (a divergent branch's other side) stand elsewhere.
        for (int l = 0; l < s->state.lanesPerWarp; ++l) {
            const ThreadState& t = s->state.lane(s->next.warp, l);
            bool running = t.status == LaneStatus::Live || t.status == LaneStatus::AtBarrier;
            int at = running ? s->build->sourceLine(t.pc) : 0;
            if (at > 0 && at != line) m_editor->markerAdd(at - 1, kOtherLanesMarker);
        }
    }
    m_timeline->setData(*s->history, s->position, s->state);
    m_timelineHost->update();
    showModelViews(*s);
}

void MainWindow::showModelViews(const DebugSnapshot& s) {
    // The token going in, run through the model once for the panels on screen that show it (not during a
    // run: a trace costs a model step). The engine thread makes it; showTrace draws it. Once the launch has
    // ended no token goes in: the panels show the last state at once.
    bool heatmap = m_heatmapHost->isVisible(), layers = m_layers->isVisible();
    if (!s.loaded || !(heatmap || layers) || m_debugger->running()) return;
    if (s.state.run == RunState::Running)
        m_debugger->requestTrace();
    else
        drawTrace(TokenTrace{});
}

void MainWindow::showTrace() {
    std::shared_ptr<const TokenTrace> trace = m_debugger->trace();
    if (trace && !m_debugger->running()) drawTrace(*trace);
}

void MainWindow::drawTrace(const TokenTrace& trace) {
    if (m_heatmapHost->isVisible()) {
        m_heatmap->show(m_debugger->session(), trace, [this] { return m_debugger->lock(); });
        m_heatmapHost->update();
    }
    if (m_layers->isVisible()) showLayers(trace);
}

void MainWindow::showLayers(const TokenTrace& trace) {
    const Session& session = m_debugger->session();
    if (trace.layers.empty()) {
        bool ended = session.snapshot().run != RunState::Running;
        return m_layers->showUnavailable(session.stateLayout().layers > 0
                                             ? (ended ? "The launch has ended: no token goes in." : "Running...")
                                             : "The " + m_debugger->backend() +
                                                   " backend runs no model: choose the model backend.");
    }
    m_layers->show(trace, session.residualFields(), session.stateLayout(),
                   [&session](int layer, int head, int row) { return session.rowMeaning(layer, head, row); });
}

void MainWindow::showSourceLine(int line) {
    m_editor->setCursorPosition(line - 1, 0);
    m_editor->ensureLineVisible(line - 1);
}

void MainWindow::showVariableTip(int position, int x, int y) {
    if (position < 0) return;
    int line, index;
    m_editor->lineIndexFromPosition(position, &line, &index);
    QString text = m_variables->valuesOf(m_editor->wordAtLineIndex(line, index));
    if (!text.isEmpty()) QToolTip::showText(m_editor->viewport()->mapToGlobal(QPoint(x, y)), text, m_editor);
}

void MainWindow::toggleBreakpoint(int line) {
    QString moved = m_debugger->toggleBreakpoint(line + 1);
    if (!moved.isEmpty()) setStatus(moved);
}

void MainWindow::showBreakpoints() {
    const QSignalBlocker quiet(m_editor);  // markers placed here are no edit
    m_editor->markerDeleteAll(kBreakpointMarker);
    for (const auto& [line, bp] : m_debugger->breakpoints()) m_editor->markerAdd(line - 1, kBreakpointMarker);
}

void MainWindow::saveBreakpoints() const {
    if (m_path.isEmpty()) return;
    QStringList kept;
    for (const auto& [line, bp] : m_debugger->breakpoints())
        kept << QString("%1\t%2\t%3").arg(line).arg(bp.enabled ? 1 : 0).arg(bp.condition);
    QSettings("qgpu", "qgpu-studio").setValue("breakpoints/" + m_path, kept);
}

std::map<int, SourceBreakpoint> MainWindow::savedBreakpoints(const QString& path) const {
    std::map<int, SourceBreakpoint> saved;
    for (const QString& row : QSettings("qgpu", "qgpu-studio").value("breakpoints/" + path).toStringList()) {
        QStringList f = row.split('\t');
        if (f.size() == 3 && f[0].toInt() > 0) saved[f[0].toInt()] = {f[1] == "1", f[2], 0};
    }
    return saved;
}

void MainWindow::syncBreakpoints() {
    std::set<int> lines;
    for (int line = m_editor->markerFindNext(0, 1 << kBreakpointMarker); line >= 0;
         line = m_editor->markerFindNext(line + 1, 1 << kBreakpointMarker))
        lines.insert(line + 1);
    std::set<int> had;
    for (const auto& [line, bp] : m_debugger->breakpoints()) had.insert(line);
    if (lines != had) m_debugger->setBreakpoints(std::move(lines));
}

}  // namespace qgpu
