// The backend diff: the verdict of comparing two backends on the same launch and, where they part, both
// machines side by side at the first step they differ: every thread's pc, status and registers in two
// tables, and every array word and shared word with the two values, the differing cells marked.
#pragma once

#include <QWidget>

#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineState.h"

class QLabel;
class QListWidget;
class QTabWidget;
class QTableWidget;

namespace qgpu {

// What the panel says until a comparison runs.
inline const char* const kDiffHint = "Debug > Compare backends (Ctrl+D) runs this launch on two backends side by side.";

class DebugController;

class BackendDiffView : public QWidget {
    Q_OBJECT
public:
    explicit BackendDiffView(QWidget* parent = nullptr);
    // Shows every comparison the debugger makes; a build clears it.
    void follow(DebugController& debugger);
    QListWidget* verdict() const { return m_verdict; }  // the verdict and the differences in words
    // Both machines at the step they first differ; `a` and `b` name the backends.
    void showMachines(const QString& a, const MachineState& ma, const QString& b, const MachineState& mb,
                      const MemoryMap& map, int step);
    void clearMachines();  // back to the verdict alone
    QTableWidget* registers(int side) const { return side == 0 ? m_regsA : m_regsB; }
    QTableWidget* memory() const { return m_memory; }
    int differingCells() const { return m_differing; }  // register table cells marked (on each side)

private:
    void fillRegisters(QTableWidget* t, const MachineState& mine, const MachineState& other);

    QListWidget* m_verdict;
    QLabel* m_title;
    QTabWidget* m_machines;
    QTableWidget *m_regsA, *m_regsB, *m_memory;
    int m_differing = 0;
};

}  // namespace qgpu
