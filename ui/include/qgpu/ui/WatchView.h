// The Watch panel: C expressions over a thread's names (threadIdx.x, r3, out[i], a debug build's variables),
// each evaluated for every lane of the warp about to run, a column a thread.
#pragma once

#include <QStringList>
#include <QWidget>

class QLineEdit;
class QTableWidget;

namespace qgpu {

class DebugController;

class WatchView : public QWidget {
    Q_OBJECT
public:
    explicit WatchView(DebugController& debugger, QWidget* parent = nullptr);
    void addWatch(const QString& expression);
    void removeWatch(int row);
    QTableWidget* table() const { return m_table; }  // a row a watch: the expression, then a column a lane

private:
    void showMoment();
    DebugController& m_debugger;
    QLineEdit* m_entry;
    QTableWidget* m_table;
    QStringList m_watches;
};

}  // namespace qgpu
