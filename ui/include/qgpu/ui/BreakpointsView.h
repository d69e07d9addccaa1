// The Breakpoints panel: every breakpoint by line, a box to turn it off and on, its condition (edited in
// place: "threadIdx.x == 3 && i > 5") and how many times a run stopped there. A click shows the line.
#pragma once

#include <QWidget>

class QLabel;
class QTableWidget;

namespace qgpu {

class DebugController;

class BreakpointsView : public QWidget {
    Q_OBJECT
public:
    enum Column { Line, Condition, Hits };
    explicit BreakpointsView(DebugController& debugger, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }
    QString note() const;

signals:
    void sourceLineRequested(int line);

private:
    void showBreakpoints();
    void edited(int row, int column);
    DebugController& m_debugger;
    QLabel* m_note;
    QTableWidget* m_table;
};

}  // namespace qgpu
