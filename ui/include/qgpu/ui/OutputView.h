// The Output panel: what the kernel's printf calls have printed by the current step, in the order they ran,
// each with the step that wrote its record, its thread and its source line; a failed device assert's message
// is marked. A click goes to that step and shows the line in the editor.
#pragma once

#include <QWidget>

class QLabel;
class QTableWidget;

namespace qgpu {

class DebugController;
struct DebugSnapshot;

class OutputView : public QWidget {
    Q_OBJECT
public:
    enum Column { Step, Thread, Line, Text };
    explicit OutputView(DebugController& debugger, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }
    QString summary() const;

signals:
    void sourceLineRequested(int line);

private:
    void showMoment(const DebugSnapshot& s);
    DebugController& m_debugger;
    QLabel* m_summary;
    QTableWidget* m_table;
};

}  // namespace qgpu
