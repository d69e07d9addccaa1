// The Variables panel: the CUDA variables and parameters in scope where one thread stands, with their values
// in their types, read from the thread's frame (a debug build's variable locations). The thread follows the
// warp about to run until the user picks one by its CUDA coordinates.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QSpinBox;
class QTableWidget;

namespace qgpu {

class DebugController;
struct DebugSnapshot;

class VariablesView : public QWidget {
    Q_OBJECT
public:
    enum Column { Name, Value, Type };
    explicit VariablesView(DebugController& debugger, QWidget* parent = nullptr);
    QTableWidget* table() const { return m_table; }
    QString note() const;
    int thread() const;     // the focused thread, by its index in the launch (block * threads per block + thread)
    void setThread(int t);  // focuses a thread: the view no longer follows the warp about to run
    // Focuses the thread cuda-gdb's focus command names ("block (1,0,0) thread (3,0,0)", "block 1 thread 3",
    // "thread 5"); false, with the note saying what is wrong, when the text names none of the launch's.
    bool focus(const QString& text);
    // `name` in every thread of the launch where it is in scope ("thread (1,0,0): 5"), a line each; "" when no
    // variable of the kernel has that name.
    QString valuesOf(const QString& name) const;

private:
    void showMoment();
    void showThread(const DebugSnapshot& s, int thread);
    DebugController& m_debugger;
    QLabel* m_note;
    QSpinBox* m_thread;
    QLineEdit* m_focus;
    QTableWidget* m_table;
    bool m_picked = false;  // the user chose the thread
};

}  // namespace qgpu
