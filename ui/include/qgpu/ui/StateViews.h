// Qt tables for the machine state: per-lane registers of one warp, and the launch's arrays in memory.
#pragma once

#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTableWidget>
#include <QWidget>

#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineState.h"

namespace qgpu {

enum class NumberFormat { Signed, Unsigned, Hex };
QString formatWord(uint32_t v, NumberFormat f);

// 4 lanes x 15 registers of the selected warp, plus each lane's PC and status; cells the last step
// wrote are highlighted.
class RegisterView : public QWidget {
    Q_OBJECT
public:
    explicit RegisterView(QWidget* parent = nullptr);
    void show(const MachineState& state, const StepEvent* last);
    QTableWidget* table() const { return m_table; }
    int warp() const { return m_warp->value(); }
    void setWarp(int w) { m_warp->setValue(w); }

private:
    QTableWidget* m_table;
    QSpinBox* m_warp;
    QComboBox* m_format;
    MachineState m_state;
    StepEvent m_last;
    bool m_hasLast = false;
    void refresh();
};

// One row per array word (name[i]), columns per value format; words the last step wrote are highlighted.
class MemoryView : public QTableWidget {
public:
    explicit MemoryView(QWidget* parent = nullptr);
    void show(const MachineState& state, const MemoryMap& map, const StepEvent* last);
};

// One thread block's shared memory: a row per word the program uses, named after the kernel's __shared__
// arrays where the compiler placed them; words the last step wrote are highlighted. The block follows the
// last step's until the user picks one.
class SharedMemoryView : public QWidget {
    Q_OBJECT
public:
    struct Array {
        QString name;
        int base = 0, words = 0;
    };
    explicit SharedMemoryView(QWidget* parent = nullptr);
    void setProgram(int words, std::vector<Array> arrays);  // words: shared words per thread block
    void show(const MachineState& state, const StepEvent* last);
    QTableWidget* table() const { return m_table; }
    int block() const { return m_block->value(); }
    void setBlock(int b) { m_block->setValue(b); }

private:
    void refresh();
    QString rowName(int addr) const;
    QSpinBox* m_block;
    QLabel* m_note;
    QTableWidget* m_table;
    int m_words = 0;
    std::vector<Array> m_arrays;
    MachineState m_state;
    StepEvent m_last;
    bool m_hasLast = false, m_picked = false;
};

}  // namespace qgpu
