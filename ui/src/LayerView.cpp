#include "qgpu/ui/LayerView.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>

#include "qgpu/ui/WordSearch.h"

namespace qgpu {

namespace {

constexpr int kFieldRole = Qt::UserRole;  // on a row's first cell: its field's index, -1 for a memory row

// "110-152" for consecutive dims, else the first few.
QString dimRange(const std::vector<int>& dims) {
    if (dims.empty()) return {};
    bool consecutive = true;
    for (size_t i = 1; i < dims.size(); ++i) consecutive = consecutive && dims[i] == dims[i - 1] + 1;
    if (consecutive)
        return dims.size() == 1 ? QString::number(dims[0]) : QString("%1-%2").arg(dims.front()).arg(dims.back());
    QStringList shown;
    for (size_t i = 0; i < dims.size() && i < 4; ++i) shown << QString::number(dims[i]);
    return shown.join(", ") + (dims.size() > 4 ? QString(", ... (%1)").arg(dims.size()) : "");
}

QString rowList(int layer, int head, const std::vector<int>& rows, const LayerView::RowLabel& label) {
    QStringList parts;
    for (size_t i = 0; i < rows.size() && i < 3; ++i) {
        QString meaning = QString::fromStdString(label(layer, head, rows[i]));
        QString row = QString("row %1").arg(rows[i]);
        parts << (meaning.isEmpty() || meaning == row ? row : row + " (" + meaning + ")");
    }
    if (rows.size() > 3) parts << QString("and %1 more").arg(rows.size() - 3);
    return parts.join(", ");
}

// A memory row's meanings: one of them holds every word of `search` (containsWords).
bool meansAny(const QStringList& meanings, const QString& search) {
    for (const QString& m : meanings)
        if (containsWords(m.toStdString(), search.toStdString())) return true;
    return false;
}

const char* encodingName(ResidualField::Encoding e) {
    switch (e) {
        case ResidualField::Encoding::Bit: return "bit (+1 false, -1 true)";
        case ResidualField::Encoding::ReadBit: return "read bit (64 false, 62 true)";
        case ResidualField::Encoding::Integer: return "integer";
    }
    return "";
}

}  // namespace

LayerView::LayerView(QWidget* parent) : QWidget(parent) {
    setObjectName("layerView");
    m_summary = new QLabel;
    m_summary->setObjectName("layerSummary");
    // One line that the panel's width cuts: a wrapping label would ask the dock for height it does not have.
    m_summary->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_filter = new QLineEdit;
    m_filter->setObjectName("layerFilter");
    m_filter->setPlaceholderText("Filter: layer, field, memory or a row's meaning (alu, regs_a, 12, lane 2 r1)");
    m_filter->setClearButtonEnabled(true);
    connect(m_filter, &QLineEdit::textChanged, this, [this] { applyFilter(); });
    m_table = new QTableWidget(0, 5);
    m_table->setObjectName("layerTable");
    m_table->setHorizontalHeaderLabels({"Layer", "What", "Field or memory", "Value", "Dims"});
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setFont(QFont("Monospace", 9));
    connect(m_table, &QTableWidget::currentCellChanged, this, [this](int row) { showDims(row); });
    m_dimsTitle = new QLabel("Click a field to see its residual dims.");
    m_dimsTitle->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // a narrow dock cuts it
    m_dims = new QTableWidget(0, 7);
    m_dims->setObjectName("layerDims");
    m_dims->setHorizontalHeaderLabels(
        {"Dim", "Feature", "Encoding", "Before the layer", "After the mixer", "After the layer", "Read (final)"});
    m_dims->verticalHeader()->hide();
    m_dims->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_dims->setFont(QFont("Monospace", 9));
    auto* detail = m_detail = new QWidget;
    auto* detailLayout = new QVBoxLayout(detail);
    detailLayout->setContentsMargins(0, 0, 0, 0);
    detailLayout->addWidget(m_dimsTitle);
    detailLayout->addWidget(m_dims);
    auto* split = new QSplitter(Qt::Horizontal);  // the panel sits in a wide, short row
    split->addWidget(m_table);
    split->addWidget(detail);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 1);
    for (QTableWidget* t : {m_table, m_dims})  // rows as tall as their text: the panel sits in a short row
        t->verticalHeader()->setDefaultSectionSize(QFontMetrics(t->font()).height() + 4);
    m_filter->setMaximumWidth(320);
    auto* top = new QHBoxLayout;
    top->addWidget(m_summary, 1);
    top->addWidget(m_filter);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(split, 1);
    clear();
}

void LayerView::clear() {
    showUnavailable("Nothing is loaded: build a program on the model backend to see its layers at work.");
}

void LayerView::showUnavailable(const QString& why) {
    m_trace = {};
    m_fields.clear();
    m_table->setRowCount(0);
    m_dims->setRowCount(0);
    m_summary->setText(why);
    m_summary->setToolTip(why);
    m_detail->hide();
}

void LayerView::addRow(int layer, const QString& what, const QString& name, const QString& value, const QString& dims,
                       int field) {
    int row = m_table->rowCount();
    m_table->insertRow(row);
    const QString cells[] = {QString::number(layer), what, name, value, dims};
    for (int c = 0; c < 5; ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        if (c == Value || c == Name) item->setToolTip(cells[c]);  // whole, where the column cuts it
        m_table->setItem(row, c, item);
    }
    m_table->item(row, Layer)->setData(kFieldRole, field);
    if (what.startsWith("mixer")) m_table->item(row, What)->setForeground(QColor(40, 110, 200));
}

void LayerView::show(const TokenTrace& trace, const std::vector<ResidualField>& layout, const StateLayout& memories,
                     const RowLabel& rowLabel) {
    m_trace = trace;
    m_layout = layout;
    m_fields = decodeFields(layout, trace);
    m_summary->setText(QString("In: <b>%1</b> (after %2 written); out: <b>%3</b>. Each field's value is read where "
                               "it is final.")
                           .arg(QString::fromStdString(trace.token).toHtmlEscaped())
                           .arg(trace.writtenBefore)
                           .arg(QString::fromStdString(trace.next).toHtmlEscaped()));
    m_summary->setToolTip(m_summary->text());  // the panel's width may cut the line
    // The selected row, to select the same layer's same field again.
    auto key = [this](int row) {
        return row < 0 ? QString()
                       : m_table->item(row, Layer)->text() + '|' + m_table->item(row, What)->text() + '|' +
                             m_table->item(row, Name)->text();
    };
    QString selected = key(m_table->currentRow());
    m_table->setUpdatesEnabled(false);
    m_table->setRowCount(0);
    for (int l = 0; l < int(trace.layers.size()); ++l) {
        const LayerTrace& lt = trace.layers[size_t(l)];
        for (int h = 0; h < memories.heads && h < int(lt.rowsRead.size()); ++h) {
            const std::string& memory = memories.memories[size_t(l * memories.heads + h)];
            if (memory.empty()) continue;
            QString name = QString("%1 (head %2)").arg(QString::fromStdString(memory)).arg(h);
            for (bool writes : {true, false}) {
                const std::vector<int>& rows = writes ? lt.rowsWritten[size_t(h)] : lt.rowsRead[size_t(h)];
                if (rows.empty()) continue;
                addRow(l, writes ? "mixer writes" : "mixer reads", name, rowList(l, h, rows, rowLabel), {}, -1);
                QStringList meanings;
                for (int row : rows) meanings << QString::fromStdString(rowLabel(l, h, row));
                m_table->item(m_table->rowCount() - 1, Value)->setData(LayerView::kMeaningsRole, meanings);
            }
        }
        for (size_t f = 0; f < m_fields.size(); ++f) {
            const LayerField& field = m_fields[f];
            if (field.born == l)
                addRow(l, field.input ? "token input" : "writes", QString::fromStdString(field.name),
                       QString::fromStdString(field.value), dimRange(field.dims), int(f));
            if (field.released == l && field.born != l)
                addRow(l, "reads last", QString::fromStdString(field.name), QString::fromStdString(field.value),
                       dimRange(field.dims), int(f));
        }
    }
    m_table->resizeColumnsToContents();
    m_table->setUpdatesEnabled(true);
    applyFilter();
    for (int r = 0; !selected.isEmpty() && r < m_table->rowCount(); ++r)
        if (key(r) == selected) m_table->setCurrentCell(r, 0);
    showDims(m_table->currentRow());
}

void LayerView::showDims(int row) {
    m_dims->setRowCount(0);
    QTableWidgetItem* first = row >= 0 ? m_table->item(row, Layer) : nullptr;
    int f = first ? first->data(kFieldRole).toInt() : -1;
    // The dims pane takes width from the table only while it shows a field's dims (a docked panel is narrow).
    m_detail->setVisible(f >= 0 && size_t(f) < m_fields.size());
    if (f < 0 || size_t(f) >= m_fields.size()) {
        m_dimsTitle->setText(first ? "A memory: its rows are in the Recurrent state panel."
                                   : "Click a field to see its residual dims.");
        return;
    }
    const LayerField& field = m_fields[size_t(f)];
    int layer = first->text().toInt();
    m_dimsTitle->setText(QString("%1 at layer %2: %3 dims, value %4")
                             .arg(QString::fromStdString(field.name))
                             .arg(layer)
                             .arg(field.dims.size())
                             .arg(QString::fromStdString(field.value)));
    auto at = [](const std::vector<float>& x, int dim) {
        return size_t(dim) < x.size() ? QString::number(double(x[size_t(dim)]), 'g', 8) : QString("-");
    };
    const LayerTrace& lt = m_trace.layers[size_t(layer)];
    const std::vector<float>* before = layer > 0 ? &m_trace.layers[size_t(layer - 1)].afterLayer : nullptr;
    for (size_t i = 0; i < field.dims.size(); ++i) {
        int dim = field.dims[i];
        const ResidualField* r = field.features[i] < m_layout.size() ? &m_layout[field.features[i]] : nullptr;
        int row = m_dims->rowCount();
        m_dims->insertRow(row);
        const QString cells[] = {QString::number(dim),
                                 r ? QString::fromStdString(r->name) : QString(),
                                 r ? encodingName(r->encoding) : "",
                                 before ? at(*before, dim) : "(the embedding)",
                                 at(lt.afterMixer, dim),
                                 at(lt.afterLayer, dim),
                                 QString("%1 after layer %2%3")
                                     .arg(double(field.raw[i]))
                                     .arg(field.readAt[i])
                                     .arg(field.readAfterMixer[i] ? "'s mixer" : "")};
        for (int c = 0; c < 7; ++c) m_dims->setItem(row, c, new QTableWidgetItem(cells[c]));
    }
    m_dims->resizeColumnsToContents();
}

void LayerView::applyFilter() {
    QString want = m_filter->text().trimmed();
    // Several words also search the rows' meanings ("lane 2 r1": the memory rows holding it that the token
    // reads or writes); one word is a layer, a field or a memory.
    bool meaning = want.contains(' ');
    for (int r = 0; r < m_table->rowCount(); ++r) {
        bool shown =
            want.isEmpty() || m_table->item(r, Layer)->text() == want ||
            m_table->item(r, Name)->text().contains(want, Qt::CaseInsensitive) ||
            m_table->item(r, What)->text().contains(want, Qt::CaseInsensitive) ||
            (meaning && meansAny(m_table->item(r, Value)->data(LayerView::kMeaningsRole).toStringList(), want));
        m_table->setRowHidden(r, !shown);
    }
}

}  // namespace qgpu
