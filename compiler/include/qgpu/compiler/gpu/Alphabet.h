// The chip tokens of the GPU inside the model (docs/tokens.md): what the host feeds (the program image
// and the launch) and what the model writes (which block a warp runs, the bytes it writes, the end).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/core/Isa.h"
#include "qgpu/core/MachineSpec.h"

namespace qgpu::gpu {

enum class Kind : uint8_t { Launch, Byte, RomWrite, MemWrite, Exec, Val, End };

// One token. Fields a kind does not use are 0.
struct Token {
    Kind kind = Kind::End;
    int lanes = 0;      // Launch: live lanes of the warp (1..4)
    int byteIndex = 0;  // Byte, Val: which byte of a word (0 = lowest)
    int value = 0;      // Byte, Val: the byte
    int block = 0;      // RomWrite, Exec
    int slot = 0;       // RomWrite: 0..3 body, 4 terminator; Val: the body slot that wrote the value
    int part = 0;       // RomWrite: 0 the word's low half (fields), 1 its high half (imm)
    int warp = 0;       // Exec
    int mask = 0;       // Exec: the lanes that run the block (the min-PC rule's active lanes)
    int address = 0;    // MemWrite: the global word the four bytes just fed initialise
    int lane = 0;       // Val

    int id() const;
    static Token fromId(int id);  // throws std::out_of_range for an id outside the alphabet
    std::string text() const;     // e.g. EXEC(b3,w0), VAL(s1,l2,k0,0x2a)
    bool operator==(const Token&) const = default;
};

constexpr int kBlocks = 32, kWarps = 32, kSlots = 4, kLanes = 4;
int vocabularySize();

// Bits 25..28 of a terminator word in the ROM image (zero in the ISA encoding): which body slots write a
// register, so the model knows which VAL records a block produces.
constexpr int kWritesMaskShift = 25;

// Exec(b, w, mask): warp w runs block b with the lanes in `mask`.
// The tokens that load `program` into the ROM (4 Byte tokens and a RomWrite per non-zero half word),
// global memory (4 Byte tokens and a MemWrite per non-zero word of `global`), and start a launch of one
// warp with `lanes` live lanes. Throws DiagnosticError naming the instruction when the program uses what
// the model backend does not run yet.
std::vector<Token> loadTokens(const Program& program, int lanes, const std::vector<uint32_t>& global = {});

// True when the slot's instruction makes the model write VAL records: the value it writes into rd != r0,
// the value a store writes to memory, or the old word an atomic add reads (what rd receives).
bool producesValue(const Instruction& in);

}  // namespace qgpu::gpu
