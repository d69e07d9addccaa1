#include "qgpu/ui/BackendDiffView.h"

#include <QHeaderView>
#include <QLabel>
#include <QListWidget>
#include <QSplitter>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include "qgpu/core/Trace.h"
#include "qgpu/ui/DebugController.h"

namespace qgpu {

namespace {

const QColor kDiffers(255, 160, 160);

QTableWidget* machineTable(const QString& name) {
    auto* t = new QTableWidget;
    t->setObjectName(name);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setFont(QFont("Monospace", 9));
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    return t;
}

QTableWidgetItem* cell(const QString& text, bool differs) {
    auto* item = new QTableWidgetItem(text);
    if (differs) item->setBackground(kDiffers);
    return item;
}

bool runs(const ThreadState& t) { return t.status == LaneStatus::Live || t.status == LaneStatus::AtBarrier; }

}  // namespace

BackendDiffView::BackendDiffView(QWidget* parent) : QWidget(parent) {
    m_verdict = new QListWidget;
    m_verdict->setObjectName("diffList");
    m_verdict->setFont(QFont("Monospace", 9));
    m_title = new QLabel;
    m_title->setObjectName("diffTitle");
    m_regsA = machineTable("diffRegistersA");
    m_regsB = machineTable("diffRegistersB");
    m_memory = machineTable("diffMemory");
    auto* sides = new QSplitter(Qt::Horizontal);
    sides->addWidget(m_regsA);
    sides->addWidget(m_regsB);
    m_machines = new QTabWidget;
    m_machines->addTab(sides, "Registers");
    m_machines->addTab(m_memory, "Memory");
    auto* split = new QSplitter(Qt::Vertical);
    split->addWidget(m_verdict);
    auto* lower = new QWidget;
    auto* lowerLayout = new QVBoxLayout(lower);
    lowerLayout->setContentsMargins(0, 0, 0, 0);
    lowerLayout->addWidget(m_title);
    lowerLayout->addWidget(m_machines, 1);
    split->addWidget(lower);
    split->setStretchFactor(0, 1);
    split->setStretchFactor(1, 3);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(split);
    clearMachines();
}

void BackendDiffView::clearMachines() {
    m_differing = 0;
    for (QTableWidget* t : {m_regsA, m_regsB, m_memory}) {
        t->clear();
        t->setRowCount(0);
        t->setColumnCount(0);
    }
    m_title->hide();
    m_machines->hide();
}

void BackendDiffView::fillRegisters(QTableWidget* t, const MachineState& mine, const MachineState& other) {
    QStringList columns = {"pc", "status"};
    for (int r = 1; r < 16; ++r) columns << QString("r%1").arg(r);
    t->setColumnCount(int(columns.size()));
    t->setHorizontalHeaderLabels(columns);
    QStringList rows;
    int row = 0;
    for (size_t i = 0; i < mine.threads.size() && i < other.threads.size(); ++i) {
        const ThreadState &a = mine.threads[i], &b = other.threads[i];
        if (a.status == LaneStatus::Absent && b.status == LaneStatus::Absent) continue;
        t->setRowCount(row + 1);
        rows << QString("w%1 l%2").arg(int(i) / mine.lanesPerWarp).arg(int(i) % mine.lanesPerWarp);
        bool pcDiffers = (runs(a) || runs(b)) && (a.pc != b.pc || runs(a) != runs(b));
        t->setItem(row, 0, cell(runs(a) ? QString::number(a.pc) : QString("-"), pcDiffers));
        t->setItem(row, 1, cell(laneStatusName(a.status), a.status != b.status));
        m_differing += pcDiffers + (a.status != b.status);
        for (int r = 1; r < 16; ++r) {
            bool differs = a.regs[size_t(r)] != b.regs[size_t(r)];
            m_differing += differs;
            t->setItem(row, r + 1, cell(QString::number(int32_t(a.regs[size_t(r)])), differs));
        }
        ++row;
    }
    t->setVerticalHeaderLabels(rows);
}

void BackendDiffView::showMachines(const QString& a, const MachineState& ma, const QString& b, const MachineState& mb,
                                   const MemoryMap& map, int step) {
    clearMachines();
    m_title->setText(QString("At step %1, side by side: %2 on the left, %3 on the right; cells that differ are red.")
                         .arg(step)
                         .arg(a, b));
    fillRegisters(m_regsA, ma, mb);
    fillRegisters(m_regsB, mb, ma);
    m_differing /= 2;  // each differing cell was counted on both sides
    m_memory->setColumnCount(3);
    m_memory->setHorizontalHeaderLabels({"location", a, b});
    QStringList rows;
    auto add = [&](const QString& name, int64_t x, int64_t y) {
        int row = m_memory->rowCount();
        m_memory->setRowCount(row + 1);
        rows << name;
        m_memory->setItem(row, 0, new QTableWidgetItem(name));
        m_memory->setItem(row, 1, cell(QString::number(x), x != y));
        m_memory->setItem(row, 2, cell(QString::number(y), x != y));
    };
    for (const ArrayPlacement& p : map.arrays) {
        if (size_t(p.base + p.size) > ma.global.size() || size_t(p.base + p.size) > mb.global.size()) continue;
        std::vector<int64_t> va = readArray(ma, p), vb = readArray(mb, p);
        for (size_t i = 0; i < va.size() && i < vb.size(); ++i)
            add(QString("%1[%2]").arg(QString::fromStdString(p.name)).arg(i), va[i], vb[i]);
    }
    for (size_t c = 0; c < ma.shared.size() && c < mb.shared.size(); ++c)
        for (size_t w = 0; w < ma.shared[c].size() && w < mb.shared[c].size(); ++w)
            if (ma.shared[c][w] != mb.shared[c][w] || ma.shared[c][w] != 0)  // the words in use
                add(QString("block %1 shared[%2]").arg(c).arg(w), int32_t(ma.shared[c][w]), int32_t(mb.shared[c][w]));
    m_memory->verticalHeader()->hide();
    m_title->show();
    m_machines->show();
}

void BackendDiffView::follow(DebugController& debugger) {
    auto hint = [this] {
        m_verdict->clear();  // it compared the previous program
        m_verdict->addItem(kDiffHint);
        clearMachines();
    };
    hint();
    connect(&debugger, &DebugController::built, this, hint);
    connect(&debugger, &DebugController::compared, this, [this, &debugger](const BackendComparison& c) {
        m_verdict->clear();
        m_verdict->addItems(c.verdict());
        clearMachines();
        if (!c.machineA.threads.empty())
            showMachines(c.a, c.machineA, c.b, c.machineB, debugger.lastBuild().map, c.divergence.step);
    });
}

}  // namespace qgpu
