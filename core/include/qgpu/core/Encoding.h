// The fixed-width binary form of instructions and blocks, as the circuit stores them in ROM rows.
#pragma once

#include <cstdint>
#include <vector>

#include "qgpu/core/Isa.h"

namespace qgpu {

// 64-bit instruction word; layout in docs/isa.md. The instruction must be linked (no symbol).
uint64_t encode(const Instruction& in);
Instruction decode(uint64_t word);  // throws DiagnosticError on an invalid opcode or field

// A block is slotsPerBlock + 1 words: the body padded with zero words, then the terminator.
// A zero word is a no-op padding slot (opcode 0 with rd = 0 writes only r0).
std::vector<uint64_t> encodeBlock(const Block& block, int slotsPerBlock);
Block decodeBlock(const std::vector<uint64_t>& words);

}  // namespace qgpu
