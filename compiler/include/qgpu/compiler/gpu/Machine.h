// The GPU of docs/isa.md compiled into Qwen3.5 layers (docs/tokens.md): the token alphabet's embeddings,
// the ROM, register file and control in Gated DeltaNet memories, the ALU in SwiGLU MLPs, and the output
// code that the tied LM head turns into the next chip token. One warp for now: the ALU, compares, sel,
// sreg; jmp, br (divergence by the min-PC rule) and exit; global loads, stores and atomic adds.
#pragma once

#include <string>
#include <vector>

#include "qgpu/compiler/circuit/Scheduler.h"
#include "qgpu/compiler/gpu/Alphabet.h"

namespace qgpu::gpu {

struct Machine {
    circuit::Circuit circuit;
    BaseRows embeddings;        // one row per token id (vocabularySize())
    std::vector<int> codeDims;  // the dims the LM head reads
};

// Builds the machine for `geometry` (linear heads of 128 x 128; hidden and intermediate large enough, or
// std::length_error says what ran out).
Machine buildMachine(const circuit::Geometry& geometry);

// The geometry tests and the default build use: Qwen3.5-2B's head and MLP sizes, a narrower residual.
circuit::Geometry defaultMachineGeometry();

// Warp g's lane l keeps register r in memory "regs_a<l * 4 + g / 8>", row (g mod 8) * 16 + r (the layout
// file names each bank's layer and head).
inline constexpr const char* kRegisterFile = "regs_a";
// Warp g's lane l keeps its state in memory "lane<l>", row g: its pc (a block, bits 0..kBlockBits-1), then
// whether it exited, whether it waits at a barrier, and that barrier's epoch parity.
enum LaneStateField { kLanePc = 0, kLaneExited = kBlockBits, kLaneWaiting, kLaneEpoch, kLaneStateBits };
// Body word s of ROM block b: its low half in memory "rom_fields_next<b / 32>", its high half in
// "rom_imm_next<b / 32>", row (b mod 32) * 4 + s. Block b's terminator: "rom_term_fields" and
// "rom_term_imm", row b.
inline constexpr int kRomBankBlocks = 32;
// Global word a lives in memory "global<a / 128>", row a % 128.
inline constexpr const char* kGlobalMemory = "global";
// Shared word a of thread block c lives in memory "shared<c / 2>", row (c mod 2) * 64 + a.
inline constexpr const char* kSharedMemory = "shared";

// What row `row` of the machine's memory `memory` (a name of the layout) holds, for the debugger's
// heatmaps: "warp 1, lane 0, r5", "global word 130", "block 2, slot 1"; "row N" where no finer meaning.
std::string rowMeaning(const std::string& memory, int row);

}  // namespace qgpu::gpu
