// The debugger's bounds check, as compute-sanitizer's memcheck has it: global memory holds the launch's arrays
// one after another, so a read past the end of one array lands in the next without any wrap. The check
// follows which array each register points into, from the immediates the linker set to an array's base
// (Block::bodySymbols) through the address arithmetic, and reports an access that leaves that array.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/core/Isa.h"
#include "qgpu/core/Launch.h"

namespace qgpu {

class ArrayBounds {
public:
    ArrayBounds(const Program& linked, const MemoryMap& map, size_t slots);

    // What the global access of `in` (body slot `instr` of ROM block `block`) by thread slot `slot` at
    // `address` means when it leaves the array its address points into: the warning's text; "" otherwise.
    std::string check(int slot, int block, int instr, const Instruction& in, uint32_t address) const;
    // As `slot` executes `in`, before rd is written (`condition`: rc's value, for sel): rd points into the
    // array its operands lead to, or none.
    void follow(int slot, int block, int instr, const Instruction& in, uint32_t condition);

private:
    int16_t immediateArray(int block, int instr) const;
    int16_t operandArray(int slot, const Instruction& in, int block, int instr) const;  // b: rs2 or the immediate

    std::vector<ArrayPlacement> m_arrays;            // the memory map's
    std::vector<std::vector<int16_t>> m_immediates;  // per block and body slot: the array its immediate is based on
    std::vector<std::array<int16_t, 16>> m_registers;
};

}  // namespace qgpu
