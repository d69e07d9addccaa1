// The shape the Problems and Output panels share: a summary line above a table of what the run has done so
// far, one row per event with the step it happened in, its thread and its source line, then what it was. A
// click on a row goes to that step and shows the line in the editor.
#pragma once

#include <QWidget>

class QLabel;
class QTableWidget;

namespace qgpu {

class DebugController;
struct DebugSnapshot;

class StepRowsView : public QWidget {
    Q_OBJECT
public:
    enum Column { Step, Thread, Line, Text };
    QTableWidget* table() const { return m_table; }
    QString summary() const;

signals:
    void sourceLineRequested(int line);

protected:
    // `name` names the table ("problemsTable") and the summary ("problemsSummary"); `text` heads the last column.
    StepRowsView(DebugController& debugger, const QString& name, const QString& text, QWidget* parent);
    virtual void showMoment(const DebugSnapshot& s) = 0;                         // after every move
    int addRow(int step, const QString& thread, int line, const QString& text);  // the row's index
    void setSummary(const QString& text);
    DebugController& m_debugger;

private:
    QLabel* m_summary;
    QTableWidget* m_table;
};

}  // namespace qgpu
