#include "qgpu/ui/StateViews.h"

#include "qgpu/core/Trace.h"
#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/ReadOnlyTable.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QSignalBlocker>
#include <QVBoxLayout>

namespace qgpu {

namespace {
const QColor kChanged(255, 225, 120);

QTableWidgetItem* cell(const QString& text, bool changed) {
    auto* it = new QTableWidgetItem(text);
    it->setFlags(Qt::ItemIsSelectable | Qt::ItemIsEnabled);
    if (changed) it->setBackground(kChanged);
    return it;
}

}  // namespace

QString formatWord(uint32_t v, NumberFormat f, bool isFloat) {
    switch (f) {
        case NumberFormat::AsTyped: return formatWord(v, isFloat ? NumberFormat::Float : NumberFormat::Signed);
        case NumberFormat::Signed: return QString::number(int32_t(v));
        case NumberFormat::Unsigned: return QString::number(v);
        case NumberFormat::Hex: return QString("0x%1").arg(v, 8, 16, QChar('0'));
        case NumberFormat::Float: return QString::fromStdString(formatWord(int32_t(v), true));
    }
    return {};
}

QString formatElement(int64_t value, ElementType type, NumberFormat f) {
    int bytes = elementBytes(type);
    if (bytes == 4) return formatWord(uint32_t(value), f, type == ElementType::F32);
    if (bytes == 8) {
        if (f == NumberFormat::Hex) return QString("0x%1").arg(uint64_t(value), 16, 16, QChar('0'));
        if (f == NumberFormat::Unsigned) return QString::number(uint64_t(value));
        if (f == NumberFormat::AsTyped) return QString::fromStdString(formatElement(value, type));
        return QString::number(value);
    }
    uint32_t raw = uint32_t(value) & (bytes == 1 ? 0xffu : 0xffffu);
    switch (f) {
        case NumberFormat::AsTyped: return QString::fromStdString(formatElement(value, type));
        case NumberFormat::Unsigned: return QString::number(raw);
        case NumberFormat::Hex: return QString("0x%1").arg(raw, 2 * bytes, 16, QChar('0'));
        default: return QString::number(value);
    }
}

QComboBox* numberFormatBox(const QString& objectName) {
    auto* box = new QComboBox;
    box->setObjectName(objectName);
    box->addItems({"as typed", "signed", "unsigned", "hex", "float"});
    box->setToolTip(
        "How words show: as typed shows floats (PTX .f32, float arrays) as floats, other words as "
        "signed integers");
    return box;
}

RegisterView::RegisterView(QWidget* parent) : QWidget(parent) {
    auto* top = new QHBoxLayout;
    m_warp = new QSpinBox;
    m_warp->setPrefix("warp ");
    m_warp->setObjectName("warpSelector");
    m_format = numberFormatBox("registerFormat");
    top->addWidget(m_warp);
    top->addWidget(m_format);
    top->addStretch();
    m_table = new QTableWidget(4, 17);
    m_table->setObjectName("registerTable");
    QStringList headers{"pc", "status"};
    for (int r = 1; r < 16; ++r) headers << QString("r%1").arg(r);
    m_table->setHorizontalHeaderLabels(headers);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(m_table);
    connect(m_warp, &QSpinBox::valueChanged, this, [this] { refresh(); });
    connect(m_format, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(m_table, &QTableWidget::cellDoubleClicked, this, [this](int lane, int column) {
        if (column >= 2) emit registerChosen(m_warp->value() * m_state.lanesPerWarp + lane, column - 1);
    });
}

void RegisterView::setProgram(const Program& program) {
    m_floatRegisters.clear();
    for (const Block& b : program.blocks) m_floatRegisters.push_back(b.floatRegisters);
}

void RegisterView::show(const MachineState& state, const StepEvent* last) {
    m_state = state;
    m_hasLast = last != nullptr;
    if (last) m_last = *last;
    m_warp->setMaximum(std::max(0, state.warpCount() - 1));
    refresh();
}

void RegisterView::refresh() {
    int lanes = m_state.lanesPerWarp, w = m_warp->value();
    NumberFormat fmt = NumberFormat(m_format->currentIndex());
    m_table->setRowCount(lanes);
    QStringList rows;
    for (int l = 0; l < lanes; ++l) rows << QString("lane %1").arg(l);
    m_table->setVerticalHeaderLabels(rows);
    TableRefill refill(m_table);
    if (w >= m_state.warpCount()) {
        m_table->clearContents();
        return;
    }
    for (int l = 0; l < lanes; ++l) {
        int slot = w * lanes + l;
        const ThreadState& t = m_state.threads[size_t(slot)];
        bool pcChanged = false, statusChanged = false;
        if (m_hasLast)
            for (const auto& c : m_last.laneChanges)
                if (c.thread == slot) {
                    pcChanged = pcChanged || c.pcBefore != c.pcAfter;
                    statusChanged = statusChanged || c.statusBefore != c.statusAfter;
                }
        // An exited (or absent) lane has no next block: its pc means nothing.
        bool runs = t.status == LaneStatus::Live || t.status == LaneStatus::AtBarrier;
        m_table->setItem(l, 0, cell(runs ? QString::number(t.pc) : QString("-"), runs && pcChanged));
        m_table->setItem(l, 1, cell(laneStatusName(t.status), statusChanged));
        uint16_t floats =
            runs && t.pc >= 0 && size_t(t.pc) < m_floatRegisters.size() ? m_floatRegisters[size_t(t.pc)] : 0;
        for (int r = 1; r < 16; ++r) {
            bool changed = false;
            if (m_hasLast)
                for (const auto& rw : m_last.regWrites) changed = changed || (rw.thread == slot && rw.reg == r);
            bool isFloat = (floats >> r) & 1;
            QTableWidgetItem* item = cell(formatWord(t.regs[size_t(r)], fmt, isFloat), changed);
            if (isFloat)
                item->setToolTip(
                    QString("a float here (PTX .f32); bits %1").arg(formatWord(t.regs[size_t(r)], NumberFormat::Hex)));
            m_table->setItem(l, r + 1, item);
        }
    }
}

MemoryView::MemoryView(QWidget* parent) : QWidget(parent) {
    m_format = numberFormatBox("memoryFormat");
    m_table = new QTableWidget(0, 3);
    m_table->setObjectName("memoryTable");
    m_table->setHorizontalHeaderLabels({"address", "value", "hex"});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* top = new QHBoxLayout;
    top->addWidget(m_format);
    top->addStretch();
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(m_table);
    connect(m_format, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
    connect(m_table, &QTableWidget::cellDoubleClicked, this,
            [this](int row, int) { emit wordChosen(m_table->item(row, 0)->text().section(' ', 0, 0).toInt()); });
}

void MemoryView::show(const MachineState& state, const MemoryMap& map, const StepEvent* last) {
    m_state = state;
    m_map = map;
    m_hasLast = last != nullptr;
    if (last) m_last = *last;
    refresh();
}

// One row per element, in the array's type; a byte or halfword shows its word and the byte it starts at.
void MemoryView::refresh() {
    NumberFormat fmt = NumberFormat(m_format->currentIndex());
    int rows = 0;
    for (const auto& a : m_map.arrays) rows += a.count;
    m_table->setRowCount(rows);
    TableRefill refill(m_table);
    QStringList names;
    int row = 0;
    for (const auto& a : m_map.arrays) {
        std::vector<int64_t> values = readArray(m_state, a);
        int bytes = elementBytes(a.type);
        for (int i = 0; i < a.count && size_t(i) < values.size(); ++i, ++row) {
            int addr = a.base + i * bytes / 4, byte = i * bytes % 4;
            bool changed = false;
            if (m_hasLast)
                for (const auto& m : m_last.memWrites)
                    changed = changed || (m.space == MemSpace::Global && m.addr == addr);
            names << QString("%1[%2]").arg(QString::fromStdString(a.name)).arg(i);
            QString where = bytes == 4 ? QString::number(addr) : QString("%1 byte %2").arg(addr).arg(byte);
            m_table->setItem(row, 0, cell(where, changed));
            m_table->setItem(row, 1, cell(formatElement(values[size_t(i)], a.type, fmt), changed));
            m_table->setItem(row, 2, cell(formatElement(values[size_t(i)], a.type, NumberFormat::Hex), changed));
        }
    }
    m_table->setVerticalHeaderLabels(names);
}

SharedMemoryView::SharedMemoryView(QWidget* parent) : QWidget(parent) {
    m_block = new QSpinBox;
    m_block->setPrefix("thread block ");
    m_block->setObjectName("sharedBlockSelector");
    m_format = numberFormatBox("sharedFormat");
    m_note = new QLabel;
    m_table = new QTableWidget(0, 2);
    m_table->setObjectName("sharedTable");
    m_table->setHorizontalHeaderLabels({"value", "hex"});
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    auto* top = new QHBoxLayout;
    top->addWidget(m_block);
    top->addWidget(m_format);
    top->addWidget(m_note, 1);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(2, 2, 2, 2);
    layout->addLayout(top);
    layout->addWidget(m_table);
    // A block the user picks stays (show() moves the box with its signals blocked); the view follows the
    // steps again after the next build.
    connect(m_block, &QSpinBox::valueChanged, this, [this] {
        m_picked = true;
        refresh();
    });
    connect(m_format, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
}

void SharedMemoryView::setProgram(int words, std::vector<Array> arrays) {
    m_words = words;
    m_arrays = std::move(arrays);
    m_picked = false;
    m_state = {};
    m_hasLast = false;
    refresh();
}

QString SharedMemoryView::rowName(int addr) const {
    for (const Array& a : m_arrays)
        if (addr >= a.base && addr < a.base + a.words) return QString("%1[%2]").arg(a.name).arg(addr - a.base);
    return QString("shared[%1]").arg(addr);
}

void SharedMemoryView::show(const MachineState& state, const StepEvent* last) {
    m_state = state;
    m_hasLast = last != nullptr;
    if (last) m_last = *last;
    QSignalBlocker quiet(m_block);
    m_block->setMaximum(std::max(0, int(state.shared.size()) - 1));
    if (last && !m_picked) m_block->setValue(last->cta);
    refresh();
}

void SharedMemoryView::refresh() {
    int cta = m_block->value();
    NumberFormat fmt = NumberFormat(m_format->currentIndex());
    bool have = cta < int(m_state.shared.size());
    m_note->setText(m_words == 0 ? "The kernel uses no shared memory."
                    : have       ? QString("%1 words").arg(m_words)
                                 : QString());
    m_table->setRowCount(have ? m_words : 0);
    TableRefill refill(m_table);
    QStringList names;
    for (int addr = 0; have && addr < m_words && addr < int(m_state.shared[size_t(cta)].size()); ++addr) {
        uint32_t v = m_state.shared[size_t(cta)][size_t(addr)];
        bool changed = false;
        if (m_hasLast)
            for (const auto& m : m_last.memWrites)
                changed = changed || (m.space == MemSpace::Shared && m.cta == cta && m.addr == addr);
        names << rowName(addr);
        m_table->setItem(addr, 0, cell(formatWord(v, fmt), changed));
        m_table->setItem(addr, 1, cell(formatWord(v, NumberFormat::Hex), changed));
    }
    m_table->setVerticalHeaderLabels(names);
}

void RegisterView::follow(DebugController& debugger) {
    connect(&debugger, &DebugController::built, this, [this, &debugger] { setProgram(debugger.lastBuild().program); });
    connect(&debugger, &DebugController::moved, this, [this, &debugger] {
        std::shared_ptr<const DebugSnapshot> s = debugger.snapshot();
        if (!s->loaded) return;
        // The warp about to run, else (at the end) the one that ran last.
        if (s->next.warp >= 0)
            setWarp(s->next.warp);
        else if (s->last())
            setWarp(s->last()->warp);
        show(s->state, s->last());
    });
}

void MemoryView::follow(DebugController& debugger) {
    connect(&debugger, &DebugController::moved, this, [this, &debugger] {
        std::shared_ptr<const DebugSnapshot> s = debugger.snapshot();
        if (s->loaded) show(s->state, s->build->map, s->last());
    });
}

void SharedMemoryView::follow(DebugController& debugger) {
    connect(&debugger, &DebugController::built, this, [this, &debugger] {
        std::vector<Array> arrays;
        for (const SharedPlacement& a : debugger.lastBuild().shared)
            arrays.push_back({QString::fromStdString(a.name), a.base, a.words});
        setProgram(debugger.lastBuild().program.sharedWords, std::move(arrays));
    });
    connect(&debugger, &DebugController::moved, this, [this, &debugger] {
        std::shared_ptr<const DebugSnapshot> s = debugger.snapshot();
        if (s->loaded) show(s->state, s->last());
    });
}

}  // namespace qgpu
