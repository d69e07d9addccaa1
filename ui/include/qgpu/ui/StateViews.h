// Qt tables for the machine state: per-lane registers of one warp, and the launch's arrays in memory.
#pragma once

#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QWidget>

#include "qgpu/core/Isa.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineState.h"

namespace qgpu {

class DebugController;

// How a view shows a 32-bit word. AsTyped shows a float (a PTX .f32 register, a "type": "float" array) as a
// float and any other word as a signed integer.
enum class NumberFormat { AsTyped, Signed, Unsigned, Hex, Float };
QString formatWord(uint32_t v, NumberFormat f, bool isFloat = false);
// An array element in a format: "as typed" is its launch type (a bool as true or false); a byte or halfword
// in hex has 2 or 4 digits.
QString formatElement(int64_t value, ElementType type, NumberFormat f);
// A box offering the formats, in NumberFormat's order, "as typed" first.
QComboBox* numberFormatBox(const QString& objectName);

// 4 lanes x 15 registers of the selected warp, plus each lane's PC and status; cells the last step
// wrote are highlighted. As typed, a register holding a float where its lane stands (the compiler marks
// them per block) shows as a float.
class RegisterView : public QWidget {
    Q_OBJECT
public:
    explicit RegisterView(QWidget* parent = nullptr);
    // Shows the debugger's every build and move.
    void follow(DebugController& debugger);
    void setProgram(const Program& program);
    void show(const MachineState& state, const StepEvent* last);
    QTableWidget* table() const { return m_table; }
    int warp() const { return m_warp->value(); }
    void setWarp(int w) { m_warp->setValue(w); }
    void setFormat(NumberFormat f) { m_format->setCurrentIndex(int(f)); }

signals:
    void registerChosen(int slot, int reg);  // a double-click on a lane's register

private:
    QTableWidget* m_table;
    QSpinBox* m_warp;
    QComboBox* m_format;
    std::vector<uint16_t> m_floatRegisters;  // per block: the registers holding a float as it begins
    MachineState m_state;
    StepEvent m_last;
    bool m_hasLast = false;
    void refresh();
};

// One row per array word (name[i]): its address, value (as typed: float arrays as floats) and bits; words the
// last step wrote are highlighted.
class MemoryView : public QWidget {
    Q_OBJECT
public:
    explicit MemoryView(QWidget* parent = nullptr);
    // Shows the debugger's every build and move.
    void follow(DebugController& debugger);
    void show(const MachineState& state, const MemoryMap& map, const StepEvent* last);
    QTableWidget* table() const { return m_table; }
    void setFormat(NumberFormat f) { m_format->setCurrentIndex(int(f)); }

signals:
    void wordChosen(int address);  // a double-click on an element: the global word that holds it

private:
    void refresh();
    QComboBox* m_format;
    QTableWidget* m_table;
    MachineState m_state;
    MemoryMap m_map;
    StepEvent m_last;
    bool m_hasLast = false;
};

// One thread block's shared memory: a row per word the program uses, named after the kernel's __shared__
// arrays where the compiler placed them; words the last step wrote are highlighted. Shared memory has no
// declared type in PTX: "as typed" shows integers, and the format box switches to floats. The block follows the
// last step's until the user picks one.
class SharedMemoryView : public QWidget {
    Q_OBJECT
public:
    struct Array {
        QString name;
        int base = 0, words = 0;
    };
    explicit SharedMemoryView(QWidget* parent = nullptr);
    // Shows the debugger's every build and move.
    void follow(DebugController& debugger);
    void setProgram(int words, std::vector<Array> arrays);  // words: shared words per thread block
    void show(const MachineState& state, const StepEvent* last);
    QTableWidget* table() const { return m_table; }
    int block() const { return m_block->value(); }
    void setBlock(int b) { m_block->setValue(b); }
    void setFormat(NumberFormat f) { m_format->setCurrentIndex(int(f)); }

private:
    void refresh();
    QString rowName(int addr) const;
    QSpinBox* m_block;
    QComboBox* m_format;
    QLabel* m_note;
    QTableWidget* m_table;
    int m_words = 0;
    std::vector<Array> m_arrays;
    MachineState m_state;
    StepEvent m_last;
    bool m_hasLast = false, m_picked = false;
};

}  // namespace qgpu
