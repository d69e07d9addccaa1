// The Warps panel, as Nsight's Warp Info: every warp of the launch with its thread block, its threads, the
// source line its next lanes stand at, those lanes (the min-PC rule's active mask) and its state, the warp
// about to run first in bold. A click on a warp shows its registers.
#pragma once

#include <QWidget>

class QTableWidget;

namespace qgpu {

class DebugController;
struct DebugSnapshot;

class WarpsView : public QWidget {
    Q_OBJECT
public:
    enum Column { Warp, Block, Threads, Line, Lanes, State };
    explicit WarpsView(DebugController& debugger, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }

signals:
    void warpChosen(int warp);

private:
    void showMoment(const DebugSnapshot& s);
    DebugController& m_debugger;
    QTableWidget* m_table;
};

}  // namespace qgpu
