// The Problems panel, as compute-sanitizer reports them: every warning of the steps run so far (an address
// outside memory, a shuffle from an inactive lane, a division by zero, a full call stack) and a fault, each with
// its step, thread and source line. A click goes to that step and shows the line in the editor.
#pragma once

#include <QWidget>

class QLabel;
class QTableWidget;

namespace qgpu {

class DebugController;
struct DebugSnapshot;

class ProblemsView : public QWidget {
    Q_OBJECT
public:
    enum Column { Step, Thread, Line, What };
    explicit ProblemsView(DebugController& debugger, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }
    QString summary() const;

signals:
    void sourceLineRequested(int line);

private:
    void showMoment(const DebugSnapshot& s);
    void addRow(int step, const QString& thread, int line, const QString& what);
    DebugController& m_debugger;
    QLabel* m_summary;
    QTableWidget* m_table;
};

}  // namespace qgpu
