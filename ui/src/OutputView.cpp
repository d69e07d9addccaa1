#include "qgpu/ui/OutputView.h"

#include <QColor>
#include <QFont>
#include <QTableWidget>
#include <map>

#include "qgpu/core/DevicePrintf.h"
#include "qgpu/ui/CudaThreads.h"
#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/ReadOnlyTable.h"

namespace qgpu {

namespace {

// The step of the run so far that last wrote each word of printf's buffer, and that write (a record's first
// word: the call that printed it).
struct Writer {
    const StepEvent* step;
    const MemWrite* write;
};
std::map<int, Writer> bufferWriters(const DebugSnapshot& s, const ArrayPlacement& buffer) {
    std::map<int, Writer> out;
    for (int i = 0; i < s.position; ++i)
        for (const MemWrite& w : (*s.history)[size_t(i)].memWrites)
            if (w.space == MemSpace::Global && w.addr >= buffer.base && w.addr < buffer.base + buffer.size)
                out[w.addr] = {&(*s.history)[size_t(i)], &w};
    return out;
}

// A record's text on one line: its newlines as C writes them, the last one left out.
QString oneLine(const std::string& text) {
    QString t = QString::fromStdString(text);
    if (t.endsWith('\n')) t.chop(1);
    return t.replace("\n", "\\n");
}

}  // namespace

OutputView::OutputView(DebugController& debugger, QWidget* parent)
    : StepRowsView(debugger, "output", "Printed", parent) {
    table()->setWordWrap(false);  // a printed line stays one line, scrolled sideways if it must
    setSummary("Build a kernel (Ctrl+B): what its printf calls print is listed here.");
}

void OutputView::showMoment(const DebugSnapshot& s) {
    TableRefill refill(table());
    table()->setRowCount(0);
    if (!s.loaded) return setSummary("Nothing is loaded: build the kernel (Ctrl+B).");
    DevicePrintfOutput printed = readDevicePrintf(s.state.global, s.build->map);
    if (printed.bufferWords == 0) return setSummary("The kernel does not call printf.");
    std::map<int, Writer> wrote = bufferWriters(s, *s.build->map.find(kPrintfBufferName));
    for (const PrintedRecord& r : printed.records) {
        auto it = wrote.find(r.word);
        if (it == wrote.end()) continue;  // not written by a step of this run
        const StepEvent& ev = *it->second.step;
        int line = s.build->sourceLine(ev.block);
        QString thread = cudaThreadName(s.build->launch, cudaThreadOf(s.state, it->second.write->thread));
        int row = addRow(ev.step, thread, line, oneLine(r.text));
        QTableWidgetItem* printedText = table()->item(row, Text);
        printedText->setFont(QFont("Monospace", 9));  // as a terminal shows it: widths line up
        printedText->setToolTip(QString::fromStdString(r.text));
        if (r.failedAssertion)
            for (int c = Step; c <= Text; ++c) table()->item(row, c)->setBackground(QColor(255, 170, 170));
    }
    QString text = QString("%1 printf call%2 in the %3 steps run so far; click one to go to its step.")
                       .arg(table()->rowCount())
                       .arg(table()->rowCount() == 1 ? "" : "s")
                       .arg(s.position);
    if (printed.failedAssertion())
        text = "A device assertion failed (marked), so the launch fails, as CUDA's does. " + text;
    if (printed.droppedWords)
        text += QString(
                    " The buffer (%1 words) is full: %2 words of later calls were dropped (build with "
                    "-D QGPU_PRINTF_WORDS=N for a larger one).")
                    .arg(printed.bufferWords)
                    .arg(printed.droppedWords);
    setSummary(text);
}

}  // namespace qgpu
