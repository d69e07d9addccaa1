#include "qgpu/core/ArrayBounds.h"

namespace qgpu {

namespace {

constexpr int16_t kNone = -1;

// The array a result points into, from its operands' (a: rs1, b: rs2 or the immediate): pointer plus or
// minus an offset, masked, shifted between byte and word addresses, or copied keeps its array; a sum of two
// pointers, a difference of two, and every other result point into none.
int16_t resultArray(Opcode op, int16_t a, int16_t b) {
    switch (op) {
        case Opcode::Mov: return b;
        case Opcode::Add:
        case Opcode::Or:
        case Opcode::Xor: return a == kNone ? b : b == kNone ? a : kNone;
        case Opcode::And:
        case Opcode::Min:
        case Opcode::Max:
        case Opcode::MinU:
        case Opcode::MaxU: return a == kNone ? b : b == kNone || b == a ? a : kNone;
        case Opcode::Sub:
        case Opcode::Shl:
        case Opcode::Shr:
        case Opcode::Sra: return b == kNone ? a : kNone;
        default: return kNone;
    }
}

// "a[4]" for an array of 32-bit elements, else "word 4 of a".
std::string elementName(const ArrayPlacement& p, int64_t word) {
    bool wordElements = p.type == ElementType::I32 || p.type == ElementType::U32 || p.type == ElementType::F32;
    return wordElements ? p.name + "[" + std::to_string(word) + "]" : "word " + std::to_string(word) + " of " + p.name;
}

}  // namespace

ArrayBounds::ArrayBounds(const Program& linked, const MemoryMap& map, size_t slots)
    : m_arrays(map.arrays), m_immediates(linked.blocks.size()), m_registers(slots) {
    for (auto& regs : m_registers) regs.fill(kNone);
    for (size_t b = 0; b < linked.blocks.size(); ++b) {
        const std::vector<std::string>& symbols = linked.blocks[b].bodySymbols;
        for (const std::string& name : symbols) {
            const ArrayPlacement* p = name.empty() ? nullptr : map.find(name);
            m_immediates[b].push_back(p ? int16_t(p - map.arrays.data()) : kNone);
        }
    }
}

int16_t ArrayBounds::immediateArray(int block, int instr) const {
    const std::vector<int16_t>& arrays = m_immediates[size_t(block)];
    return size_t(instr) < arrays.size() ? arrays[size_t(instr)] : kNone;
}

int16_t ArrayBounds::operandArray(int slot, const Instruction& in, int block, int instr) const {
    return in.useImm ? immediateArray(block, instr) : m_registers[size_t(slot)][in.rs2];
}

std::string ArrayBounds::check(int slot, int block, int instr, const Instruction& in, uint32_t address) const {
    // The address is rs1 plus the immediate: an array's base in either, not in both.
    int16_t array = resultArray(Opcode::Add, m_registers[size_t(slot)][in.rs1], immediateArray(block, instr));
    if (array == kNone) return {};
    const ArrayPlacement& p = m_arrays[size_t(array)];
    int64_t word = int64_t(int32_t(address)) - p.base;
    if (word >= 0 && word < p.size) return {};
    std::string access = in.op == Opcode::LdGlobal ? "read" : in.op == Opcode::StGlobal ? "write" : "atomic";
    std::string there = "in no array";
    for (const ArrayPlacement& other : m_arrays)
        if (int64_t(address) >= other.base && int64_t(address) < other.base + other.size)
            there = elementName(other, int64_t(address) - other.base);
    return "out-of-bounds " + access + " of " + elementName(p, word) + ": " + p.name + " has " +
           std::to_string(p.count) + " element" + (p.count == 1 ? "" : "s") + ", and word " +
           std::to_string(int32_t(address)) + " is " + there;
}

void ArrayBounds::follow(int slot, int block, int instr, const Instruction& in, uint32_t condition) {
    if (in.rd == 0) return;
    std::array<int16_t, 16>& regs = m_registers[size_t(slot)];
    int16_t a = regs[in.rs1], b = operandArray(slot, in, block, instr);
    regs[in.rd] = in.op == Opcode::Sel ? (condition != 0 ? a : b) : resultArray(in.op, a, b);
}

}  // namespace qgpu
