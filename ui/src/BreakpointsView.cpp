#include "qgpu/ui/BreakpointsView.h"

#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QTableWidget>
#include <QVBoxLayout>

#include "qgpu/ui/DebugController.h"

namespace qgpu {

BreakpointsView::BreakpointsView(DebugController& debugger, QWidget* parent) : QWidget(parent), m_debugger(debugger) {
    m_table = new QTableWidget(0, 3);
    m_table->setObjectName("breakpointsTable");
    m_table->setHorizontalHeaderLabels({"Line", "Condition", "Hits"});
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setSectionResizeMode(Condition, QHeaderView::Stretch);
    m_table->setToolTip(
        "The box turns a breakpoint off and on. A condition (C, over threadIdx, blockIdx, "
        "blockDim, gridDim and a debug build's variables) stops a run only for a thread where it "
        "holds; double-click to edit it.");
    m_note = new QLabel;
    m_note->setObjectName("breakpointsNote");
    m_note->setWordWrap(true);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_note);
    connect(m_table, &QTableWidget::cellChanged, this, &BreakpointsView::edited);
    connect(m_table, &QTableWidget::cellClicked, this,
            [this](int row, int) { emit sourceLineRequested(m_table->item(row, Line)->data(Qt::UserRole).toInt()); });
    connect(&debugger, &DebugController::breakpointsChanged, this, &BreakpointsView::showBreakpoints);
    showBreakpoints();
}

QString BreakpointsView::note() const { return m_note->text(); }

void BreakpointsView::showBreakpoints() {
    const QSignalBlocker quiet(m_table);
    const auto& breakpoints = m_debugger.breakpoints();
    m_table->setRowCount(int(breakpoints.size()));
    int row = 0;
    for (const auto& [line, bp] : breakpoints) {
        auto* where = new QTableWidgetItem(QString::number(line));
        where->setData(Qt::UserRole, line);
        where->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsUserCheckable);
        where->setCheckState(bp.enabled ? Qt::Checked : Qt::Unchecked);
        m_table->setItem(row, Line, where);
        m_table->setItem(row, Condition, new QTableWidgetItem(bp.condition));
        auto* hits = new QTableWidgetItem(QString::number(bp.hits));
        hits->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
        m_table->setItem(row, Hits, hits);
        ++row;
    }
    if (breakpoints.empty()) m_note->setText("No breakpoints: click the editor's margin or press F9 on a line.");
}

void BreakpointsView::edited(int row, int column) {
    int line = m_table->item(row, Line)->data(Qt::UserRole).toInt();
    if (column == Line)
        return m_debugger.setBreakpointEnabled(line, m_table->item(row, Line)->checkState() == Qt::Checked);
    if (column != Condition) return;
    QString problem = m_debugger.setBreakpointCondition(line, m_table->item(row, Condition)->text());
    m_note->setText(problem.isEmpty() ? QString("Line %1 stops where its condition holds.").arg(line) : problem);
    if (!problem.isEmpty()) showBreakpoints();  // the condition it keeps
}

}  // namespace qgpu
