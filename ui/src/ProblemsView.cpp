#include "qgpu/ui/ProblemsView.h"

#include <QHeaderView>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "qgpu/core/Trace.h"
#include "qgpu/ui/CudaThreads.h"
#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/ReadOnlyTable.h"

namespace qgpu {

ProblemsView::ProblemsView(DebugController& debugger, QWidget* parent) : QWidget(parent), m_debugger(debugger) {
    m_summary = new QLabel;
    m_summary->setObjectName("problemsSummary");
    m_summary->setWordWrap(true);
    m_table = readOnlyTable("problemsTable", {"Step", "Thread", "Line", "Problem"});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    m_summary->setText("Build a kernel (Ctrl+B): what goes wrong as it runs is listed here.");
    connect(m_table, &QTableWidget::cellActivated, this, [this](int row, int) {
        int line = m_table->item(row, Line)->data(Qt::UserRole).toInt();
        if (line > 0) emit sourceLineRequested(line);
        m_debugger.moveTo(m_table->item(row, Step)->data(Qt::UserRole).toInt() + 1);
    });
    connect(m_table, &QTableWidget::cellClicked, m_table, &QTableWidget::cellActivated);
    connect(&debugger, &DebugController::moved, this, [this] { showMoment(*m_debugger.snapshot()); });
}

QString ProblemsView::summary() const { return m_summary->text(); }

void ProblemsView::addRow(int step, const QString& thread, int line, const QString& what) {
    int row = m_table->rowCount();
    m_table->setRowCount(row + 1);
    setRow(m_table, row, {QString::number(step), thread, line > 0 ? QString::number(line) : QString("?"), what});
    m_table->item(row, Step)->setData(Qt::UserRole, step);
    m_table->item(row, Line)->setData(Qt::UserRole, line);
}

void ProblemsView::showMoment(const DebugSnapshot& s) {
    TableRefill refill(m_table);
    m_table->setRowCount(0);
    if (!s.loaded) return m_summary->setText("Nothing is loaded: build the kernel (Ctrl+B).");
    const BuiltProgram& b = *s.build;
    int warps = s.state.warpsPerBlock;
    for (int i = 0; i < s.position; ++i) {
        const StepEvent& ev = (*s.history)[size_t(i)];
        for (const StepWarning& w : ev.warnings) {
            CudaThread t = cudaThreadOf(s.state, ev.warp * s.state.lanesPerWarp + w.lane);
            addRow(ev.step, cudaThreadName(b.launch, t), instructionLine(b.program, ev.block, w.instruction),
                   QString::fromStdString(w.text));
        }
        if (!ev.fault.empty())
            addRow(ev.step, QString("warp %1 of block %2").arg(ev.warp - ev.cta * warps).arg(ev.cta),
                   terminatorLine(b.program, ev.block), "fault: " + QString::fromStdString(ev.fault));
    }
    int n = m_table->rowCount();
    m_summary->setText(n == 0 ? QString("No problems in the %1 steps run so far.").arg(s.position)
                              : QString("%1 problem%2 in the %3 steps run so far; click one to go to its step.")
                                    .arg(n)
                                    .arg(n == 1 ? "" : "s")
                                    .arg(s.position));
}

}  // namespace qgpu
