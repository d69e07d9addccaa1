// The Steps panel: every step of the launch recorded so far, one line each with its writes and warnings;
// the steps ahead of the debugger (after it went back) in grey. A click moves the debugger to that step's end.
#pragma once

#include <QListWidget>

namespace qgpu {

class DebugController;

class StepListView : public QListWidget {
    Q_OBJECT
public:
    explicit StepListView(DebugController& debugger, QWidget* parent = nullptr);

private:
    void showMoment();
    DebugController& m_debugger;
};

// Shows the rows from `first` on as not reached yet (grey italics: steps or tokens ahead of the debugger
// after it went back), the others as they were written.
void showReached(QListWidget* list, int first);

}  // namespace qgpu
