#include "qgpu/ui/OutputView.h"

#include <QColor>
#include <QFont>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <map>

#include "qgpu/core/DevicePrintf.h"
#include "qgpu/ui/CudaThreads.h"
#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/ReadOnlyTable.h"

namespace qgpu {

namespace {

// The step of the run so far that last wrote each global word (a record's first word: the step that printed).
std::map<int, const StepEvent*> writers(const DebugSnapshot& s) {
    std::map<int, const StepEvent*> out;
    for (int i = 0; i < s.position; ++i)
        for (const MemWrite& w : (*s.history)[size_t(i)].memWrites)
            if (w.space == MemSpace::Global) out[w.addr] = &(*s.history)[size_t(i)];
    return out;
}

// A record's text on one line: its newlines as C writes them, the last one left out.
QString oneLine(const std::string& text) {
    QString t = QString::fromStdString(text);
    if (t.endsWith('\n')) t.chop(1);
    return t.replace("\n", "\\n");
}

}  // namespace

OutputView::OutputView(DebugController& debugger, QWidget* parent) : QWidget(parent), m_debugger(debugger) {
    m_summary = new QLabel;
    m_summary->setObjectName("outputSummary");
    m_summary->setWordWrap(true);
    m_table = readOnlyTable("outputTable", {"Step", "Thread", "Line", "Printed"});
    m_table->setWordWrap(false);  // a printed line stays one line, scrolled sideways if it must
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_summary);
    layout->addWidget(m_table, 1);
    m_summary->setText("Build a kernel (Ctrl+B): what its printf calls print is listed here.");
    connect(m_table, &QTableWidget::cellActivated, this, [this](int row, int) {
        int line = m_table->item(row, Line)->data(Qt::UserRole).toInt();
        if (line > 0) emit sourceLineRequested(line);
        m_debugger.moveTo(m_table->item(row, Step)->data(Qt::UserRole).toInt() + 1);
    });
    connect(m_table, &QTableWidget::cellClicked, m_table, &QTableWidget::cellActivated);
    connect(&debugger, &DebugController::moved, this, [this] { showMoment(*m_debugger.snapshot()); });
}

QString OutputView::summary() const { return m_summary->text(); }

void OutputView::showMoment(const DebugSnapshot& s) {
    TableRefill refill(m_table);
    m_table->setRowCount(0);
    if (!s.loaded) return m_summary->setText("Nothing is loaded: build the kernel (Ctrl+B).");
    DevicePrintfOutput printed = readDevicePrintf(s.state.global, s.build->map);
    if (printed.bufferWords == 0) return m_summary->setText("The kernel does not call printf.");
    std::map<int, const StepEvent*> wrote = writers(s);
    for (const PrintedRecord& r : printed.records) {
        auto it = wrote.find(r.word);
        if (it == wrote.end()) continue;  // not written by a step of this run
        const StepEvent& ev = *it->second;
        const MemWrite& w = *std::find_if(ev.memWrites.begin(), ev.memWrites.end(),
                                          [&](const MemWrite& m) { return m.addr == r.word; });
        int row = m_table->rowCount(), line = s.build->sourceLine(ev.block);
        m_table->setRowCount(row + 1);
        setRow(m_table, row,
               {QString::number(ev.step), cudaThreadName(s.build->launch, cudaThreadOf(s.state, w.thread)),
                line > 0 ? QString::number(line) : QString("?"), oneLine(r.text)});
        m_table->item(row, Step)->setData(Qt::UserRole, ev.step);
        m_table->item(row, Line)->setData(Qt::UserRole, line);
        m_table->item(row, Text)->setFont(QFont("Monospace", 9));  // as a terminal shows it: widths line up
        m_table->item(row, Text)->setToolTip(QString::fromStdString(r.text));
        if (r.failedAssertion)
            for (int c = Step; c <= Text; ++c) m_table->item(row, c)->setBackground(QColor(255, 170, 170));
    }
    QString text = QString("%1 printf call%2 in the %3 steps run so far; click one to go to its step.")
                       .arg(m_table->rowCount())
                       .arg(m_table->rowCount() == 1 ? "" : "s")
                       .arg(s.position);
    if (printed.failedAssertion())
        text = "A device assertion failed (marked), so the launch fails, as CUDA's does. " + text;
    if (printed.droppedWords)
        text += QString(
                    " The buffer (%1 words) is full: %2 words of later calls were dropped (build with "
                    "-D QGPU_PRINTF_WORDS=N for a larger one).")
                    .arg(printed.bufferWords)
                    .arg(printed.droppedWords);
    m_summary->setText(text);
}

}  // namespace qgpu
