#include "qgpu/ui/ProblemsView.h"

#include <QTableWidget>

#include "qgpu/core/Trace.h"
#include "qgpu/ui/CudaThreads.h"
#include "qgpu/ui/DebugController.h"
#include "qgpu/ui/ReadOnlyTable.h"

namespace qgpu {

ProblemsView::ProblemsView(DebugController& debugger, QWidget* parent)
    : StepRowsView(debugger, "problems", "Problem", parent) {
    setSummary("Build a kernel (Ctrl+B): what goes wrong as it runs is listed here.");
}

void ProblemsView::showMoment(const DebugSnapshot& s) {
    TableRefill refill(table());
    table()->setRowCount(0);
    if (!s.loaded) return setSummary("Nothing is loaded: build the kernel (Ctrl+B).");
    const BuiltProgram& b = *s.build;
    int warps = s.state.warpsPerBlock;
    for (int i = 0; i < s.position; ++i) {
        const StepEvent& ev = (*s.history)[size_t(i)];
        for (const StepWarning& w : ev.warnings) {
            CudaThread t = cudaThreadOf(s.state, ev.warp * s.state.lanesPerWarp + w.lane);
            addRow(ev.step, cudaThreadName(b.launch, t), instructionLine(b.program, ev.block, w.instruction),
                   QString::fromStdString(w.text));
        }
        if (!ev.fault.empty())
            addRow(ev.step, QString("warp %1 of block %2").arg(ev.warp - ev.cta * warps).arg(ev.cta),
                   terminatorLine(b.program, ev.block), "fault: " + QString::fromStdString(ev.fault));
    }
    int n = table()->rowCount();
    setSummary(n == 0 ? QString("No problems in the %1 steps run so far.").arg(s.position)
                      : QString("%1 problem%2 in the %3 steps run so far; click one to go to its step.")
                            .arg(n)
                            .arg(n == 1 ? "" : "s")
                            .arg(s.position));
}

}  // namespace qgpu
