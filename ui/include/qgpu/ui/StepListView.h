// The Steps panel: every step of the launch recorded so far, one line each with its writes and warnings;
// the steps ahead of the debugger (after it went back) in grey. A click moves the debugger to that step's end.
#pragma once

#include <QListWidget>

namespace qgpu {

class DebugController;

// Shows a list's rows from a moment's first row on as not reached yet (grey italics: steps or tokens ahead of
// the debugger after it went back), the others as they were written. It restyles only the rows that changed
// side since the last moment and those added since, so a move costs what it changes, not the list's length.
class ReachedRows {
public:
    void show(QListWidget* list, int first);

private:
    void restyle(QListWidget* list, int row, bool ahead);
    int m_first = 0;   // the last moment's first row not reached
    int m_styled = 0;  // the rows the list had then (those after it are new, as written)
};

class StepListView : public QListWidget {
    Q_OBJECT
public:
    explicit StepListView(DebugController& debugger, QWidget* parent = nullptr);

private:
    void showMoment();
    DebugController& m_debugger;
    ReachedRows m_reached;
};

}  // namespace qgpu
