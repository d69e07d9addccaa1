// The studio's tables of facts (problems, warps, a word's history, variables): read-only, whole rows
// selected, no row numbers, columns as wide as their contents and the last one taking the rest.
#pragma once

#include <QStringList>

class QHeaderView;
class QTableWidget;
class QTableWidgetItem;

namespace qgpu {

QTableWidget* readOnlyTable(const QString& objectName, const QStringList& headers);
// Sizes a table's columns to their contents once, when a refill is over: with ResizeToContents on, every
// change to a cell measures its column again (about half a millisecond a cell under Xvfb), and the views
// that follow the debugger refill ten times a second during a run.
class TableRefill {
public:
    explicit TableRefill(QTableWidget* table);
    ~TableRefill();
    TableRefill(const TableRefill&) = delete;
    TableRefill& operator=(const TableRefill&) = delete;

private:
    QHeaderView* m_header;
};

// A cell's text, changed in place and only where it differs (each change measures the column again); the item.
QTableWidgetItem* setCell(QTableWidget* table, int row, int column, const QString& text);
// From column 0, in order, in bold or not.
void setRow(QTableWidget* table, int row, const QStringList& cells, bool bold = false);

}  // namespace qgpu
