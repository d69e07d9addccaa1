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

TableRefill::TableRefill(QTableWidget* table) : m_header(table->horizontalHeader()) {
    m_header->setSectionResizeMode(QHeaderView::Fixed);
}

TableRefill::~TableRefill() { m_header->setSectionResizeMode(QHeaderView::ResizeToContents); }

void setRow(QTableWidget* table, int row, const QStringList& cells, bool bold) {
    // Items are changed in place and only where they differ: every change makes the header measure its
    // column again, so a view that follows each step must not touch the cells that stayed.
    for (int c = 0; c < int(cells.size()); ++c) {
        QTableWidgetItem* item = table->item(row, c);
        if (!item) table->setItem(row, c, item = new QTableWidgetItem);
        if (item->text() != cells[c]) item->setText(cells[c]);
        if (item->font().bold() != bold) {
            QFont f = item->font();
            f.setBold(bold);
            item->setFont(f);
        }
    }
}

}  // namespace qgpu
