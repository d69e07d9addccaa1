#include "qgpu/ui/ReadOnlyTable.h"

#include <QHeaderView>
#include <QTableWidget>

namespace qgpu {

QTableWidget* readOnlyTable(const QString& objectName, const QStringList& headers) {
    auto* t = new QTableWidget(0, int(headers.size()));
    t->setObjectName(objectName);
    t->setHorizontalHeaderLabels(headers);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(true);
    return t;
}

void setRow(QTableWidget* table, int row, const QStringList& cells) {
    for (int c = 0; c < int(cells.size()); ++c) table->setItem(row, c, new QTableWidgetItem(cells[c]));
}

}  // namespace qgpu
