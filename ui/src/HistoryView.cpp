#include "qgpu/ui/HistoryView.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QSignalBlocker>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <optional>

#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/ReadOnlyTable.h"
#include "qgpu/ui/CudaThreads.h"
#include "qgpu/ui/TokenText.h"

namespace qgpu {

namespace {

QString threadOf(const DebugSnapshot& s, int slot) {
    return cudaThreadName(s.build->launch, cudaThreadOf(s.state, slot));
}

// The written token that carries a register write: the last byte of the value that the block's last writer of
// the register produced in the thread's lane. None on a backend that writes no tokens.
std::optional<size_t> registerToken(const DebugSnapshot& s, const StepEvent& ev, const RegWrite& w) {
    const Block& b = s.build->program.blocks.at(size_t(ev.block));
    int slot = -1;
    for (size_t i = 0; i < b.body.size(); ++i)
        if (b.body[i].rd == w.reg) slot = int(i);
    int lane = w.thread % s.state.lanesPerWarp;
    for (const ValueRecord& r : valueRecords(s.tokens, ev.step))
        if (r.slot == slot && r.lane == lane) return r.token;
    return std::nullopt;
}

// The written token that carries a global word's write: the last store record of the step that wrote the
// word's new value, or the step's last atomic record (whose value is the word it read).
std::optional<size_t> memoryToken(const DebugSnapshot& s, const StepEvent& ev, const MemWrite& w) {
    const Block& b = s.build->program.blocks.at(size_t(ev.block));
    std::optional<size_t> found;
    for (const ValueRecord& r : valueRecords(s.tokens, ev.step)) {
        Opcode op = size_t(r.slot) < b.body.size() ? b.body[size_t(r.slot)].op : Opcode::Exit;
        if ((op == Opcode::StGlobal && r.value == w.after) || op == Opcode::AtomGlobal) found = r.token;
    }
    return found;
}

}  // namespace

HistoryView::HistoryView(DebugController& debugger, QWidget* parent) : QWidget(parent), m_debugger(debugger) {
    m_subject = new QLabel("Double-click a register or a memory row to see every step that wrote it.");
    m_subject->setObjectName("historySubject");
    m_subject->setWordWrap(true);
    m_place = new QLabel;
    m_place->setObjectName("historyPlace");
    m_place->setWordWrap(true);
    m_place->hide();
    m_table = readOnlyTable("historyTable", {"Step", "Token", "Thread", "Before", "After"});
    m_table->horizontalHeaderItem(Token)->setToolTip(
        "On the model backend: the token the model wrote the value with (its number in the Token stream); "
        "a click on it goes to the moment the model wrote it");
    m_stop = new QCheckBox("Stop a run when this word changes");
    m_stop->setObjectName("historyStopOnChange");
    m_stop->setEnabled(false);
    connect(m_stop, &QCheckBox::toggled, this, [this](bool on) { m_debugger.setDataBreakpoint(on ? m_address : -1); });
    connect(&debugger, &DebugController::breakpointsChanged, this, [this] {
        const QSignalBlocker quiet(m_stop);
        m_stop->setChecked(m_address >= 0 && m_debugger.dataBreakpoint() == m_address);
    });
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_subject);
    layout->addWidget(m_place);
    layout->addWidget(m_stop);
    layout->addWidget(m_table, 1);
    connect(m_table, &QTableWidget::cellClicked, this, [this](int row, int column) {
        QVariant written = m_table->item(row, Token)->data(Qt::UserRole);
        if (column == Token && written.isValid())
            m_debugger.moveToToken(written.toULongLong() + 1);
        else
            m_debugger.moveTo(m_table->item(row, Step)->text().toInt() + 1);
    });
    connect(&debugger, &DebugController::moved, this, &HistoryView::showMoment);
    connect(&debugger, &DebugController::built, this, [this] {
        m_slot = m_address = -1;
        m_stop->setEnabled(false);
        m_rows.clear();
        showPlace();
    });
}

QString HistoryView::subject() const { return m_subject->text(); }
QString HistoryView::place() const { return m_place->text(); }

void HistoryView::showPlace() {
    std::shared_ptr<const DebugSnapshot> s = m_debugger.snapshot();
    m_place->clear();
    m_place->hide();
    if (!s->loaded || (m_slot < 0 && m_address < 0) || m_debugger.running()) return;
    int lanes = s->state.lanesPerWarp;
    std::string meaning = m_slot >= 0 ? "warp " + std::to_string(m_slot / lanes) + ", lane " +
                                            std::to_string(m_slot % lanes) + ", r" + std::to_string(m_reg)
                                      : "global word " + std::to_string(m_address);
    if (m_rows.empty()) m_rows.read(m_debugger.session());
    std::vector<StateRowIndex::Place> places = m_rows.find([&](const std::string& m) { return m == meaning; }, 8);
    if (places.empty()) return;
    QStringList where;
    for (const StateRowIndex::Place& p : places)
        where << QString("%1 row %2 (layer %3, head %4)")
                     .arg(QString::fromStdString(p.memory))
                     .arg(p.row)
                     .arg(p.layer)
                     .arg(p.head);
    m_place->setText(QString("In the model (%1): %2. A step that writes it writes these rows, each in its "
                             "layer's mixer (the Layers panel shows the token that does).")
                         .arg(QString::fromStdString(meaning), where.join(", ")));
    m_place->show();
}

void HistoryView::followRegister(int slot, int reg) {
    m_slot = slot, m_reg = reg, m_address = -1;
    m_stop->setEnabled(false);
    showPlace();
    showMoment();
}

void HistoryView::followGlobalWord(int address) {
    m_address = address, m_slot = -1;
    showPlace();
    m_stop->setEnabled(true);
    const QSignalBlocker quiet(m_stop);
    m_stop->setChecked(m_debugger.dataBreakpoint() == address);
    showMoment();
}

void HistoryView::addRow(const DebugSnapshot& s, int step, std::optional<size_t> written, const QString& thread,
                         uint32_t before, uint32_t after) {
    int row = m_table->rowCount();
    m_table->setRowCount(row + 1);
    QString token = written ? QString::number(s.tokens.fed.size() + *written) : QString();
    setRow(m_table, row,
           {QString::number(step), token, thread, QString::number(int32_t(before)), QString::number(int32_t(after))});
    if (written) m_table->item(row, Token)->setData(Qt::UserRole, qulonglong(*written));
}

void HistoryView::showMoment() {
    std::shared_ptr<const DebugSnapshot> s = m_debugger.snapshot();
    TableRefill refill(m_table);
    m_table->setRowCount(0);
    if (!s->loaded || (m_slot < 0 && m_address < 0)) return;
    for (int i = 0; i < s->position; ++i) {
        const StepEvent& ev = (*s->history)[size_t(i)];
        for (const RegWrite& w : ev.regWrites)
            if (w.thread == m_slot && w.reg == m_reg)
                addRow(*s, ev.step, registerToken(*s, ev, w), threadOf(*s, w.thread), w.before, w.after);
        for (const MemWrite& w : ev.memWrites)
            if (m_address >= 0 && w.space == MemSpace::Global && w.addr == m_address)
                addRow(*s, ev.step, memoryToken(*s, ev, w), threadOf(*s, w.thread), w.before, w.after);
    }
    QString what = m_slot >= 0 ? QString("r%1 of %2").arg(m_reg).arg(threadOf(*s, m_slot))
                               : QString("global word %1").arg(m_address);
    m_subject->setText(QString("%1: written %2 times in the %3 steps so far; click a step to go there.")
                           .arg(what)
                           .arg(m_table->rowCount())
                           .arg(s->position));
}

}  // namespace qgpu
