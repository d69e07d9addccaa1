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
#include <QTimer>
#include <QToolBar>
#include <algorithm>

#include "qgpu/core/Session.h"
#include "qgpu/ui/CodeViews.h"
#include "qgpu/ui/DivergenceTimeline.h"
#include "qgpu/ui/EngineThread.h"
#include "qgpu/ui/ImGuiHost.h"
#include "qgpu/ui/BackendDiffView.h"
#include "qgpu/ui/LayerView.h"
#include "qgpu/ui/RomView.h"
#include "qgpu/ui/StateHeatmap.h"
#include "qgpu/ui/StateViews.h"

namespace qgpu {

namespace {

// saveState's version: a layout saved by a build with other panels is not restored.
constexpr int kLayoutVersion = 3;

// The default layout's groups of tabbed panels: the program beside the editor, the machine below it, and
// the launch's history and the model's views along the bottom.
const QStringList kProgramPanels = {"Launch", "PTX", "Machine blocks"};
const QStringList kMachinePanels = {"Registers", "Memory", "Shared memory", "Chat"};
const QStringList kHistoryPanels = {"Steps", "Token stream", "Backend diff"};
const QStringList kModelPanels = {"Warp divergence", "ROM", "Recurrent state", "Layers"};

}  // namespace

QDockWidget* MainWindow::addDock(const QString& title, QWidget* w) {
    auto* d = new QDockWidget(title, this);
    d->setObjectName(title);
    d->setWidget(w);
    addDockWidget(Qt::RightDockWidgetArea, d);
    m_docks.push_back(d);
    return d;
}

void MainWindow::createDocks() {
    m_launch = new LaunchPanel;
    addDock("Launch", m_launch);
    m_codeViews = new CodeViews(this);
    connect(m_codeViews, &CodeViews::sourceLineRequested, this, [this](int line) {
        m_editor->setCursorPosition(line - 1, 0);
        m_editor->ensureLineVisible(line - 1);
    });
    addDock("PTX", m_codeViews->ptxView());
    addDock("Machine blocks", m_codeViews->blockView());
    m_rom = new RomView;
    addDock("ROM", m_rom);
    m_registers = new RegisterView;
    addDock("Registers", m_registers);
    m_memory = new MemoryView;
    addDock("Memory", m_memory);
    m_shared = new SharedMemoryView;
    addDock("Shared memory", m_shared);
    m_events = new QListWidget;
    m_events->setObjectName("eventList");
    m_events->setFont(QFont("Monospace", 9));
    // A click (or Enter) on a step moves the debugger to the end of that step.
    for (auto signal : {&QListWidget::itemClicked, &QListWidget::itemActivated})
        connect(m_events, signal, this, [this](QListWidgetItem* it) { moveTo(m_events->row(it) + 1); });
    addDock("Steps", m_events);
    m_tokens = new QListWidget;
    m_tokens->setObjectName("tokenList");
    m_tokens->setFont(QFont("Monospace", 9));
    // A click (or Enter) on a written token moves the debugger to the moment the model wrote it (mid-step
    // where the token is inside one); on a fed one to the start.
    auto toToken = [this](QListWidgetItem* it) {
        size_t fed;
        {
            auto lock = m_engine->lock();
            fed = m_session->tokens().fed.size();
        }
        if (fed == 0) return;  // the line saying this backend writes no tokens
        int row = m_tokens->row(it) - int(fed);
        if (row < 0)
            moveTo(0);
        else
            moveToToken(size_t(row) + 1);
    };
    connect(m_tokens, &QListWidget::itemClicked, this, toToken);
    connect(m_tokens, &QListWidget::itemActivated, this, toToken);
    m_tokenDock = addDock("Token stream", m_tokens);
    m_diffView = new BackendDiffView;
    m_diff = m_diffView->verdict();
    m_diff->addItem(kDiffHint);
    addDock("Backend diff", m_diffView);
    m_timeline = std::make_unique<DivergenceTimeline>();
    m_timeline->onStepClicked = [this](int step) {  // after the frame that saw the click
        QTimer::singleShot(0, this, [this, step] { moveTo(step + 1); });
    };
    m_timelineHost = new ImGuiHost(m_timeline.get());
    m_timelineHost->setObjectName("timelineView");
    addDock("Warp divergence", m_timelineHost);
    m_heatmap = std::make_unique<StateHeatmap>();
    m_heatmapHost = new ImGuiHost(m_heatmap.get());
    m_heatmapHost->setObjectName("heatmapView");
    m_heatmapDock = addDock("Recurrent state", m_heatmapHost);
    connect(m_heatmapDock, &QDockWidget::visibilityChanged, this, [this](bool shown) {
        if (shown && !running()) refresh();
    });
    m_layers = new LayerView;
    QDockWidget* layerDock = addDock("Layers", m_layers);
    connect(layerDock, &QDockWidget::visibilityChanged, this, [this](bool shown) {
        if (shown && !running()) refresh();
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
    QDockWidget* program = place(kProgramPanels, Qt::RightDockWidgetArea, Qt::Vertical);
    QDockWidget* machine = place(kMachinePanels, Qt::RightDockWidgetArea, Qt::Vertical);
    QDockWidget* history = place(kHistoryPanels, Qt::BottomDockWidgetArea, Qt::Horizontal);
    QDockWidget* model = place(kModelPanels, Qt::BottomDockWidgetArea, Qt::Horizontal);
    for (QToolBar* bar : findChildren<QToolBar*>()) bar->show();
    if (!isVisible()) return;  // sizes before the window has its own do not hold, and may grow it
    // The first layout may have grown the window past the screen (a word-wrapped label measured narrow).
    resize(size().boundedTo(screen()->availableGeometry().size()));
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
