// The Results panel: the verdict of the launch, never cut off, above every output array as it stands: each
// element's value beside the one the launch spec expects, the mismatches marked and counted.
#pragma once

#include <QWidget>

class QLabel;
class QTableWidget;

namespace qgpu {

class DebugController;
struct DebugSnapshot;

class ResultsView : public QWidget {
    Q_OBJECT
public:
    enum Column { Element, Value, Expected };
    explicit ResultsView(DebugController& debugger, QWidget* parent = nullptr);
    QString verdict() const;
    QTableWidget* table() const { return m_table; }
    int mismatches() const { return m_mismatches; }  // expected elements that differ, over every array

private:
    void showMoment(const DebugSnapshot& s);
    int fillRows(const DebugSnapshot& s);  // the rows; returns the expected elements compared
    DebugController& m_debugger;
    QLabel* m_verdict;
    QTableWidget* m_table;
    int m_mismatches = 0;
};

}  // namespace qgpu
