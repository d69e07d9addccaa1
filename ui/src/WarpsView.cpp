#include "qgpu/ui/WarpsView.h"

#include <QHeaderView>
#include <QTableWidget>
#include <QVBoxLayout>
#include <set>

#include "qgpu/core/Trace.h"
#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/ReadOnlyTable.h"
#include "qgpu/ui/CudaThreads.h"

namespace qgpu {

namespace {

// One warp as the scheduler sees it: its running lanes, those at the smallest pc (the next to run), and
// every source line a running lane stands at.
struct WarpInfo {
    uint8_t lanes = 0;  // the min-PC rule's lanes
    int pc = -1;        // their block; -1: no lane runs
    bool waiting = false, exited = true;
    std::set<int> lines;
};

WarpInfo warpInfo(const DebugSnapshot& s, int warp) {
    WarpInfo w;
    int lanes = s.state.lanesPerWarp;
    for (int l = 0; l < lanes; ++l) {
        const ThreadState& t = s.state.lane(warp, l);
        if (t.status == LaneStatus::Absent || t.status == LaneStatus::Exited) continue;
        w.exited = false;
        w.lines.insert(s.build->sourceLine(t.pc));
        if (t.status == LaneStatus::AtBarrier) {
            w.waiting = true;
            continue;
        }
        if (w.pc < 0 || t.pc < w.pc) w.pc = t.pc, w.lanes = 0;
        if (t.pc == w.pc) w.lanes |= uint8_t(1u << l);
    }
    return w;
}

QString stateOf(const WarpInfo& w, bool next) {
    if (w.exited) return "exited";
    QString state = next ? "runs next" : w.pc < 0 ? "at the barrier" : "ready";
    if (w.waiting && w.pc >= 0) state += ", some lanes at the barrier";
    if (w.lines.size() > 1) state += QString(", diverged over %1 lines").arg(w.lines.size());
    return state;
}

}  // namespace

WarpsView::WarpsView(DebugController& debugger, QWidget* parent) : QWidget(parent), m_debugger(debugger) {
    m_table = readOnlyTable("warpsTable", {"Warp", "Block", "Threads", "Line", "Next lanes", "State"});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table);
    connect(m_table, &QTableWidget::cellClicked, this, [this](int row, int) { emit warpChosen(row); });
    connect(&debugger, &DebugController::moved, this, [this] { showMoment(*m_debugger.snapshot()); });
}

void WarpsView::showMoment(const DebugSnapshot& s) {
    TableRefill refill(m_table);
    if (!s.loaded) return m_table->setRowCount(0);
    const LaunchSpec& launch = s.build->launch;
    int warps = s.state.warpCount(), lanes = s.state.lanesPerWarp, perBlock = launch.threadsPerBlock();
    m_table->setRowCount(warps);
    for (int w = 0; w < warps; ++w) {
        WarpInfo info = warpInfo(s, w);
        CudaThread first = cudaThreadOf(s.state, w * lanes);
        int last = std::min(perBlock, first.thread + lanes) - 1;
        QString line = info.pc < 0 ? QString("-") : QString::number(s.build->sourceLine(info.pc));
        QStringList cells = {QString::number(w),
                             cudaBlockName(launch.grid, first.block),
                             QString("%1..%2").arg(first.thread).arg(last),
                             line,
                             info.pc < 0 ? QString("-") : QString::fromStdString(maskString(info.lanes, lanes)),
                             stateOf(info, s.next.warp == w)};
        setRow(m_table, w, cells, s.next.warp == w);
    }
}

}  // namespace qgpu
