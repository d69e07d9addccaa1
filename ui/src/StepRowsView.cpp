#include "qgpu/ui/StepRowsView.h"

#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>

#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/ReadOnlyTable.h"

namespace qgpu {

StepRowsView::StepRowsView(DebugController& debugger, const QString& name, const QString& text, QWidget* parent)
    : QWidget(parent), m_debugger(debugger) {
    m_summary = new QLabel;
    m_summary->setObjectName(name + "Summary");
    m_summary->setWordWrap(true);
    m_table = readOnlyTable(name + "Table", {"Step", "Thread", "Line", text});
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableWidget::cellActivated, this, [this](int row, int) {
        int line = m_table->item(row, Line)->data(Qt::UserRole).toInt();
        if (line > 0) emit sourceLineRequested(line);
        m_debugger.moveTo(m_table->item(row, Step)->data(Qt::UserRole).toInt() + 1);
    });
    connect(m_table, &QTableWidget::cellClicked, m_table, &QTableWidget::cellActivated);
    connect(&debugger, &DebugController::moved, this, [this] { showMoment(*m_debugger.snapshot()); });
}

QString StepRowsView::summary() const { return m_summary->text(); }

void StepRowsView::setSummary(const QString& text) { m_summary->setText(text); }

int StepRowsView::addRow(int step, const QString& thread, int line, const QString& text) {
    int row = m_table->rowCount();
    m_table->setRowCount(row + 1);
    setRow(m_table, row, {QString::number(step), thread, line > 0 ? QString::number(line) : QString("?"), text});
    m_table->item(row, Step)->setData(Qt::UserRole, step);
    m_table->item(row, Line)->setData(Qt::UserRole, line);
    return row;
}

}  // namespace qgpu
