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

QTableWidgetItem* setCell(QTableWidget* table, int row, int column, const QString& text) {
    QTableWidgetItem* item = table->item(row, column);
    if (!item) table->setItem(row, column, item = new QTableWidgetItem);
    if (item->text() != text) item->setText(text);
    return item;
}

void setRow(QTableWidget* table, int row, const QStringList& cells, bool bold) {
    for (int c = 0; c < int(cells.size()); ++c) {
        QTableWidgetItem* item = setCell(table, row, c, cells[c]);
        if (item->font().bold() != bold) {
            QFont f = item->font();
            f.setBold(bold);
            item->setFont(f);
        }
    }
}

}  // namespace qgpu
