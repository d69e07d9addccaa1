// The History panel: every step that wrote one register of one thread, or one word of global memory, with the
// value before and after, up to the moment shown; a click goes to the end of that step. A double-click on a
// register or a memory row chooses what it follows. On the model backend it also gives the token the model
// wrote each value with (a click on it goes to that token) and says where the register or word lives in the
// recurrent state.
#pragma once

#include <QWidget>
#include <cstdint>
#include <optional>

#include "qgpu/ui/StateRowIndex.h"

class QCheckBox;
class QLabel;
class QTableWidget;

namespace qgpu {

class DebugController;
struct DebugSnapshot;

class HistoryView : public QWidget {
    Q_OBJECT
public:
    enum Column { Step, Token, Thread, Before, After };
    explicit HistoryView(DebugController& debugger, QWidget* parent = nullptr);
    void followRegister(int slot, int reg);  // a thread by its machine slot
    void followGlobalWord(int address);
    QTableWidget* table() const { return m_table; }
    QCheckBox* stopOnChange() const { return m_stop; }  // a data breakpoint on the word followed
    QString subject() const;
    // On the model backend: the state rows that hold what is followed, each with its layer and head (that
    // layer's mixer writes it); "" on a backend without a state.
    QString place() const;

private:
    void showMoment();
    void addRow(const DebugSnapshot& s, int step, std::optional<size_t> written, const QString& thread, uint32_t before,
                uint32_t after);
    void showPlace();
    DebugController& m_debugger;
    QLabel* m_subject;
    QLabel* m_place;
    StateRowIndex m_rows;  // the model's state rows, read when a follow first asks
    QCheckBox* m_stop;
    QTableWidget* m_table;
    int m_slot = -1, m_reg = 0, m_address = -1;
};

}  // namespace qgpu
