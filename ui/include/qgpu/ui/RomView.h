// The program ROM as the backend holds it (on the model backend decoded from the recurrent state), word by
// word beside the words the compiler produced: block, slot, the word's fields and bits, the instruction,
// a flag where the two differ, and the warps whose lanes are at each block.
#pragma once

#include <QWidget>
#include <cstdint>
#include <vector>

#include "qgpu/core/MachineState.h"
#include "qgpu/core/Session.h"

class QLabel;
class QTableWidget;

namespace qgpu {

class DebugController;

class RomView : public QWidget {
    Q_OBJECT
public:
    enum Column { Block, Slot, Held, Instruction, Fields, Compiled, Warps };

    explicit RomView(QWidget* parent = nullptr);
    // Shows the debugger's every build and move.
    void follow(DebugController& debugger);
    // `compiled`: per block, the body words then the terminator (encodeBlock's layout).
    void setRom(const RomImage& held, const std::vector<std::vector<uint64_t>>& compiled, const QString& backend);
    void clear();
    // Marks, on each block's first row, the warps with a lane about to run it.
    void showWarps(const MachineState& state);
    int differences() const { return m_differences; }
    int rowOf(int block, int slot) const;  // -1 when not shown
    QTableWidget* table() const { return m_table; }

private:
    QLabel* m_summary;
    QTableWidget* m_table;
    std::vector<int> m_firstRow;  // per block
    int m_slots = 0, m_differences = 0;
};

// The fields of a 64-bit instruction word (docs/isa.md): "op 5 imm rd 3 rs1 1 rs2 0 rc 0 aux 0 #4".
QString romWordFields(uint64_t word);

}  // namespace qgpu
