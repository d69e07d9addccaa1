// The layer view: what each of the model's layers did with the token going in, decoded from the residual
// stream and the recurrent state through the circuit's layout. One row per memory a layer's mixer read or
// wrote (with the rows), per field a layer wrote (pc, opcode, operands, ALU result, memory address and data,
// the next token's code) and per field it read for the last time; a click on a field lists its residual dims.
#pragma once

#include <QWidget>
#include <functional>
#include <string>
#include <vector>

#include "qgpu/core/Session.h"
#include "qgpu/core/TokenTrace.h"

class QLabel;
class QLineEdit;
class QTableWidget;

namespace qgpu {

class LayerView : public QWidget {
    Q_OBJECT
public:
    enum Column { Layer, What, Name, Value, Dims };
    // On a memory row's Value cell: every state row's meaning (a QStringList), which the filter searches.
    static constexpr int kMeaningsRole = Qt::UserRole + 1;

    explicit LayerView(QWidget* parent = nullptr);
    // A state row's meaning ("warp 0, lane 0, r5"), for the rows the mixers read and wrote.
    using RowLabel = std::function<std::string(int layer, int head, int row)>;
    // `trace` must have its layers; the selected row stays on the same layer's same field.
    void show(const TokenTrace& trace, const std::vector<ResidualField>& layout, const StateLayout& memories,
              const RowLabel& rowLabel);
    void showUnavailable(const QString& why);  // no trace: why (a backend without a model, a launch ended)
    void clear();                              // nothing loaded
    QTableWidget* table() const { return m_table; }
    QTableWidget* dimTable() const { return m_dims; }
    QLabel* summary() const { return m_summary; }
    void showDims(int row);  // the residual dims of the field on a row of table() (none for a memory row)

private:
    void addRow(int layer, const QString& what, const QString& name, const QString& value, const QString& dims,
                int field);
    void applyFilter();

    QLabel* m_summary;
    QLineEdit* m_filter;
    QTableWidget *m_table, *m_dims;
    QLabel* m_dimsTitle;
    QWidget* m_detail;  // the title and the dims: shown beside the table while a field is selected
    TokenTrace m_trace;
    std::vector<ResidualField> m_layout;
    std::vector<LayerField> m_fields;
};

}  // namespace qgpu
