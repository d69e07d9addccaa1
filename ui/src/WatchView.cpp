#include "qgpu/ui/WatchView.h"

#include <QHeaderView>
#include <QKeyEvent>
#include <QLineEdit>
#include <QShortcut>
#include <QTableWidget>
#include <QVBoxLayout>

#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/ReadOnlyTable.h"
#include "qgpu/ui/CudaThreads.h"

namespace qgpu {

WatchView::WatchView(DebugController& debugger, QWidget* parent) : QWidget(parent), m_debugger(debugger) {
    m_entry = new QLineEdit;
    m_entry->setObjectName("watchEntry");
    m_entry->setPlaceholderText("Add a watch: threadIdx.x * 2, r3, out[threadIdx.x], a variable... (Enter)");
    m_table = new QTableWidget(0, 1);
    m_table->setObjectName("watchTable");
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->verticalHeader()->hide();
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->setToolTip("Select a watch and press Delete to remove it.");
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_entry);
    layout->addWidget(m_table, 1);
    connect(m_entry, &QLineEdit::returnPressed, this, [this] {
        addWatch(m_entry->text());
        m_entry->clear();
    });
    auto* remove = new QShortcut(QKeySequence::Delete, m_table, nullptr, nullptr, Qt::WidgetShortcut);
    connect(remove, &QShortcut::activated, this, [this] { removeWatch(m_table->currentRow()); });
    connect(&debugger, &DebugController::moved, this, &WatchView::showMoment);
}

void WatchView::addWatch(const QString& expression) {
    if (expression.trimmed().isEmpty()) return;
    m_watches << expression.trimmed();
    showMoment();
}

void WatchView::removeWatch(int row) {
    if (row < 0 || row >= m_watches.size()) return;
    m_watches.removeAt(row);
    showMoment();
}

void WatchView::showMoment() {
    std::shared_ptr<const DebugSnapshot> s = m_debugger.snapshot();
    int warp = s->next.warp >= 0 ? s->next.warp : s->last() ? s->last()->warp : -1;
    int lanes = s->state.lanesPerWarp;
    bool shown = s->loaded && warp >= 0;
    TableRefill refill(m_table);
    m_table->setRowCount(int(m_watches.size()));
    m_table->setColumnCount(shown ? 1 + lanes : 1);
    QStringList headers{"Expression"};
    for (int l = 0; shown && l < lanes; ++l) {
        headers << cudaThreadName(s->build->launch.block, cudaThreadOf(s->state, warp * lanes + l).thread);
    }
    m_table->setHorizontalHeaderLabels(headers);
    for (int row = 0; row < int(m_watches.size()); ++row) {
        setCell(m_table, row, 0, m_watches[row]);
        for (int l = 0; shown && l < lanes; ++l) {
            int slot = warp * lanes + l;
            const ThreadState& t = s->state.threads[size_t(slot)];
            QString text = "-";
            if (t.status == LaneStatus::Live || t.status == LaneStatus::AtBarrier) {
                ConditionResult r = evaluateCondition(
                    m_watches[row].toStdString(), threadNames(s->state, *s->build, slot, s->build->sourceLine(t.pc)));
                text = r.error.empty() ? QString::number(r.value) : QString::fromStdString(r.error);
            }
            setCell(m_table, row, 1 + l, text);
        }
    }
}

}  // namespace qgpu
