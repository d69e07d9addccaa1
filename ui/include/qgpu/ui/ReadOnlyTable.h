// The studio's tables of facts (problems, warps, a word's history, variables): read-only, whole rows
// selected, no row numbers, columns as wide as their contents and the last one taking the rest.
#pragma once

#include <QStringList>

class QTableWidget;

namespace qgpu {

QTableWidget* readOnlyTable(const QString& objectName, const QStringList& headers);
void setRow(QTableWidget* table, int row, const QStringList& cells);  // from column 0, in order

}  // namespace qgpu
