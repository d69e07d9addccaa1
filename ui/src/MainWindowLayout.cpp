// The window's panels: created once, placed by the default layout (or the user's, saved between runs), and
// reopened from the View menu.
#include "qgpu/ui/MainWindow.h"

#include <Qsci/qsciscintilla.h>

#include <QDockWidget>
#include <QListWidget>
#include <QMenuBar>
#include <QScreen>
#include <QSettings>
#include <QStatusBar>
#include <QTabBar>
#include <QTimer>
#include <QToolBar>
#include <algorithm>

#include "qgpu/core/Session.h"
#include "qgpu/ui/CodeViews.h"
#include "qgpu/ui/DivergenceTimeline.h"
#include "qgpu/ui/BackendDiffView.h"
#include "qgpu/ui/BreakpointsView.h"
#include "qgpu/ui/HistoryView.h"
#include "qgpu/ui/ImGuiHost.h"
#include "qgpu/ui/LayerView.h"
#include "qgpu/ui/OutputView.h"
#include "qgpu/ui/ProblemsView.h"
#include "qgpu/ui/ResultsView.h"
#include "qgpu/ui/RomView.h"
#include "qgpu/ui/StateHeatmap.h"
#include "qgpu/ui/StateViews.h"
#include "qgpu/ui/StepListView.h"
#include "qgpu/ui/TokenStreamView.h"
#include "qgpu/ui/VariablesView.h"
#include "qgpu/ui/WarpsView.h"
#include "qgpu/ui/WatchView.h"

namespace qgpu {

namespace {

// saveState's version: a layout saved by a build with other panels is not restored.
constexpr int kLayoutVersion = 5;

// The default layout's groups of tabbed panels: the program beside the editor, the machine below it, and
// the launch's history and the model's views along the bottom.
const QStringList kProgramPanels = {"Launch", "PTX", "Machine blocks"};
const QStringList kMachinePanels = {"Registers", "Variables", "Watch", "Memory", "Shared memory", "Chat"};
const QStringList kHistoryPanels = {"Steps",       "Results", "Problems",     "Output",
                                    "Breakpoints", "History", "Token stream", "Backend diff"};
const QStringList kModelPanels = {"Warp divergence", "Warps", "ROM", "Recurrent state", "Layers"};

}  // namespace

QDockWidget* MainWindow::addDock(const QString& title, QWidget* w) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(title);
    d->setWidget(w);
    addDockWidget(Qt::RightDockWidgetArea, d);
    m_docks.push_back(d);
    return d;
}

void MainWindow::markFocusedPanel(QWidget* now) {
    QDockWidget* focused = nullptr;
    for (QDockWidget* d : m_docks)
        if (now && d->isAncestorOf(now)) focused = d;
    if (focused == m_focusedDock) return;
    if (m_focusedDock) m_focusedDock->setStyleSheet({});
    m_focusedDock = focused;
    if (focused)
        focused->setStyleSheet(
            "QDockWidget::title { background: palette(highlight); color: palette(highlighted-text); }");
}

QString MainWindow::focusedPanel() const { return m_focusedDock ? m_focusedDock->objectName() : QString(); }

void MainWindow::createDocks() {
    DebugController& d = *m_debugger;
    m_launch = new LaunchPanel;
    addDock("Launch", m_launch);
    m_codeViews = new CodeViews(this);
    m_codeViews->follow(d);
    connect(m_codeViews, &CodeViews::sourceLineRequested, this, &MainWindow::showSourceLine);
    addDock("PTX", m_codeViews->ptxView());
    addDock("Machine blocks", m_codeViews->blockView());
    addDock("ROM", m_rom = new RomView);
    m_rom->follow(d);
    addDock("Registers", m_registers = new RegisterView);
    m_registers->follow(d);
    m_variablesDock = addDock("Variables", m_variables = new VariablesView(d));
    addDock("Warps", m_warps = new WarpsView(d));
    addDock("Watch", m_watch = new WatchView(d));
    connect(m_warps, &WarpsView::warpChosen, m_registers, &RegisterView::setWarp);
    addDock("Memory", m_memory = new MemoryView);
    m_memory->follow(d);
    addDock("Shared memory", m_shared = new SharedMemoryView);
    m_shared->follow(d);
    addDock("Steps", m_events = new StepListView(d));
    m_resultsDock = addDock("Results", m_results = new ResultsView(d));
    addDock("Problems", m_problems = new ProblemsView(d));
    connect(m_problems, &ProblemsView::sourceLineRequested, this, &MainWindow::showSourceLine);
    addDock("Output", m_output = new OutputView(d));
    connect(m_output, &OutputView::sourceLineRequested, this, &MainWindow::showSourceLine);
    addDock("Breakpoints", m_breakpoints = new BreakpointsView(d));
    addDock("History", m_history = new HistoryView(d));
    connect(m_registers, &RegisterView::registerChosen, m_history, &HistoryView::followRegister);
    connect(m_memory, &MemoryView::wordChosen, m_history, &HistoryView::followGlobalWord);
    auto showHistory = [this] { findChild<QDockWidget*>("History")->raise(); };
    connect(m_registers, &RegisterView::registerChosen, this, showHistory);
    connect(m_memory, &MemoryView::wordChosen, this, showHistory);
    connect(m_breakpoints, &BreakpointsView::sourceLineRequested, this, &MainWindow::showSourceLine);
    m_tokenDock = addDock("Token stream", m_tokens = new TokenStreamView(d));
    addDock("Backend diff", m_diffView = new BackendDiffView);
    m_diffView->follow(d);
    createModelViews();
}

void MainWindow::createModelViews() {
    m_timeline = std::make_unique<DivergenceTimeline>();
    m_timeline->onStepClicked = [this](int step) {  // after the frame that saw the click
        QTimer::singleShot(0, this, [this, step] { m_debugger->moveTo(step + 1); });
    };
    m_timelineHost = new ImGuiHost(m_timeline.get());
    m_timelineHost->setObjectName("timelineView");
    addDock("Warp divergence", m_timelineHost);
    m_heatmap = std::make_unique<StateHeatmap>();
    m_heatmapHost = new ImGuiHost(m_heatmap.get());
    m_heatmapHost->setObjectName("heatmapView");
    m_heatmapDock = addDock("Recurrent state", m_heatmapHost);
    m_layers = new LayerView;
    QDockWidget* layerDock = addDock("Layers", m_layers);
    // Shown again, they read the moment they missed (not during a run: a trace costs a model step).
    for (QDockWidget* dock : {m_heatmapDock, layerDock})
        connect(dock, &QDockWidget::visibilityChanged, this, [this](bool shown) {
            if (shown) showModelViews(*m_debugger->snapshot());
        });
}

void MainWindow::applyDefaultLayout() {
    auto named = [this](const QString& title) { return findChild<QDockWidget*>(title); };
    // Each group's panels as tabs of its first, every panel shown and docked.
    auto place = [&](const QStringList& titles, Qt::DockWidgetArea area, Qt::Orientation split) {
        QDockWidget* first = nullptr;
        for (const QString& title : titles) {
            QDockWidget* d = named(title);
            if (!d) continue;  // the chat exists only in the app
            d->setFloating(false);
            if (first) {
                tabifyDockWidget(first, d);
            } else {
                addDockWidget(area, d, split);
                first = d;
            }
            d->show();
        }
        if (first) first->raise();
        return first;
    };
    // Docking the panels one by one lays them out beside each other before they become tabs, which grows
    // the window past its size (the chat among them: 800 pixels high became 939); it gets its size back.
    QSize before = size();
    QDockWidget* program = place(kProgramPanels, Qt::RightDockWidgetArea, Qt::Vertical);
    QDockWidget* machine = place(kMachinePanels, Qt::RightDockWidgetArea, Qt::Vertical);
    QDockWidget* history = place(kHistoryPanels, Qt::BottomDockWidgetArea, Qt::Horizontal);
    QDockWidget* model = place(kModelPanels, Qt::BottomDockWidgetArea, Qt::Horizontal);
    for (QToolBar* bar : findChildren<QToolBar*>()) bar->show();
    keepTabNames();
    if (!isVisible()) return;  // sizes before the window has its own do not hold, and may grow it
    resize(before.boundedTo(screen()->availableGeometry().size()));
    // The side column takes what the editor's 80 columns leave (a third of a narrow window at least), the
    // bottom row 28% of the height, split in half. Sizes asked beyond the window's would grow it: the
    // column's two groups share what the bars and their tab bars leave.
    int editorWidth = m_editor->fontMetrics().horizontalAdvance(QString(86, 'M')) + 60;
    int side = std::clamp(width() - editorWidth, width() / 3, 620);
    int bottom = height() * 28 / 100;
    int chrome = menuBar()->height() + statusBar()->height() + 2 * fontMetrics().height() * 2;
    for (QToolBar* bar : findChildren<QToolBar*>()) chrome += bar->height();
    int column = std::max(0, height() - chrome - bottom);
    resizeDocks({program, machine}, {side, side}, Qt::Horizontal);
    resizeDocks({program, machine}, {column * 9 / 20, column * 7 / 20}, Qt::Vertical);
    resizeDocks({history, model}, {bottom, bottom}, Qt::Vertical);
    resizeDocks({history, model}, {width() / 2, width() / 2}, Qt::Horizontal);
}

void MainWindow::keepTabNames() {
    // Many panels share a group: its tabs scroll rather than cut their names to "W...".
    for (QTabBar* tabs : findChildren<QTabBar*>()) {
        tabs->setElideMode(Qt::ElideNone);
        tabs->setUsesScrollButtons(true);
    }
}

void MainWindow::resetLayout() {
    applyDefaultLayout();
    setStatus("The panels are back in the default layout.");
}

void MainWindow::restoreLayout() {
    QSettings settings("qgpu", "qgpu-studio");
    if (!restoreGeometry(settings.value("geometry").toByteArray()))
        resize(QSize(1500, 950).boundedTo(screen()->availableGeometry().size()));
    // Dock sizes set before the window is shown do not hold: the default waits for the window's size.
    if (!restoreState(settings.value("windowState").toByteArray(), kLayoutVersion))
        QTimer::singleShot(0, this, [this] { applyDefaultLayout(); });
    else
        keepTabNames();
}

void MainWindow::saveLayout() {
    QSettings settings("qgpu", "qgpu-studio");
    settings.setValue("geometry", saveGeometry());
    settings.setValue("windowState", saveState(kLayoutVersion));
}

void MainWindow::createViewMenu() {
    m_viewMenu = menuBar()->addMenu("&View");
    m_viewMenu->setObjectName("viewMenu");
    fillViewMenu();
}

void MainWindow::fillViewMenu() {
    m_viewMenu->clear();
    for (QDockWidget* d : m_docks) m_viewMenu->addAction(d->toggleViewAction());
    for (QToolBar* bar : findChildren<QToolBar*>()) m_viewMenu->addAction(bar->toggleViewAction());
    m_viewMenu->addSeparator();
    m_viewMenu->addAction("&Reset layout", this, [this] { resetLayout(); })->setObjectName("resetLayoutAction");
}

}  // namespace qgpu
