// The chip tokens of the GPU inside the model (docs/tokens.md): what the host feeds (the program image
// and the launch) and what the model writes (which block a warp runs, the bytes it writes, the end).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/core/Isa.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineSpec.h"

namespace qgpu::gpu {

enum class Kind : uint8_t { BlockDim, GridDim, Byte, RomWrite, MemWrite, Exec, Val, Release, End, Fault };

// One token. Fields a kind does not use are 0.
struct Token {
    Kind kind = Kind::End;
    std::array<int, 3> shape{};  // BlockDim, GridDim: x, y, z (each >= 1, their product <= 32)
    int byteIndex = 0;           // Byte, Val: which byte of a word (0 = lowest)
    int value = 0;               // Byte, Val: the byte; a small RomWrite or MemWrite: the word (0..255)
    bool last = false;           // Byte, Val: the word's last byte (byte 3 always is); see spellWord
    int block = 0;               // RomWrite, Exec
    int slot = 0;                // RomWrite: 0..3 body, 4 terminator; Val: the body slot that wrote the value
    int part = 0;                // RomWrite: 0 the word's low half (fields), 1 its high half (imm)
    int warp = 0;                // Exec
    int mask = 0;                // Exec: the lanes that run the block (the min-PC rule's active lanes); Fault:
                                 // the live lanes of the warp that did not reach its barrier
    int address = 0;             // MemWrite: the global word the bytes just fed initialise
    bool small = false;          // RomWrite, MemWrite: the word is `value` (0..255), carried by this token alone
    int lane = 0;                // Val
    int epoch = 0;               // Release: the barrier epoch's new parity

    int id() const;
    bool endsLaunch() const { return kind == Kind::End || kind == Kind::Fault; }
    static Token fromId(int id);  // throws std::out_of_range for an id outside the alphabet
    std::string text() const;     // e.g. EXEC(b3,w0), VAL(s1,l2,k0,0x2a), VAL(s0,l0,k1,0x01.) (a last byte)
    bool operator==(const Token&) const = default;
};

constexpr int kBlocks = 128, kWarps = 32, kSlots = 4, kLanes = 4;
constexpr int kBlockBits = 7, kWarpBits = 5;
static_assert(kBlocks == 1 << kBlockBits && kWarps == 1 << kWarpBits);
// A small RomWrite (a half word below 256 in one token) exists for the first kSmallRomBlocks blocks: a
// kernel of up to 32 blocks loads in as few tokens as it did when the ROM held 32, and the vocabulary
// does not grow by 256 ids per ROM half word of the larger ROM.
constexpr int kSmallRomBlocks = 32;
// A small MemWrite (a word below 256 in one token) exists for the first kSmallMemWords words of global memory.
constexpr int kSmallMemWords = 64;
int vocabularySize();

// Bits 7..10 of a terminator word in the ROM image (rd, which no terminator has): which body slots write a
// register, so the model knows which VAL records a block produces.
constexpr int kWritesMaskShift = 7;

// The words the embeddings of Exec and RomWrite tokens carry (the machine's "x" input):
// block | warp << kBlockBits | mask << (kBlockBits + kWarpBits), and block | slot << kBlockBits | part << (kBlockBits +
// 3).
enum ExecField { kExecBlock = 0, kExecWarp = kBlockBits, kExecMask = kBlockBits + kWarpBits };
enum RomField { kRomBlock = 0, kRomSlot = kBlockBits, kRomPart = kBlockBits + 3 };
uint32_t xWord(const Token& t);  // Exec, RomWrite: the word above; MemWrite: the address

// Every (x, y, z) shape a BlockDim or GridDim token names, in id order.
const std::vector<std::array<int, 3>>& launchShapes();

// The word a BlockDim token carries: ntid.x-1, ntid.y-1, ntid.z-1 (5 bits each), then the threads of a
// block - 1 (5 bits) and its warps - 1 (3 bits). A GridDim token's: nctaid.x-1, .y-1, .z-1, then the
// thread blocks - 1. The embedding holds these words (a lookup table in the weights, like any token's
// meaning); the host only names the shape.
uint32_t shapeWord(const Token& t);

// A 32-bit word as byte tokens spell it: bytes 0, 1, ... up to the last one needed. Above a Val's last byte
// the word repeats that byte's bit 7 (the model's values: -128..127 take one token, and small negative
// results are common); above a Byte's last byte it is zero (the host's words: instruction fields and
// small inputs). Returns how many bytes, 1..4.
int wordBytes(uint32_t word, bool signExtend);
// The byte tokens of `word` (kind Byte or Val; the caller fills slot and lane for Val).
std::vector<Token> spellWord(Kind kind, uint32_t word);

// The slots (global warp * 4 + lane) of a launch's threads, ascending: every thread block has
// ceil(threads / 4) warps, and the last one is partial when the threads are not a multiple of 4.
std::vector<int> threadSlots(const Dim3& grid, const Dim3& block);

// The tokens that load `program` into the ROM (its Byte tokens and a RomWrite per non-zero half word, or
// one small RomWrite for a half word below 256), global memory (likewise: its Byte tokens and a MemWrite,
// or one small MemWrite for a word below 256 in the first kSmallMemWords), and start the launch:
// BlockDim then GridDim. Throws DiagnosticError naming the instruction when the program uses what the
// model backend does not run yet, or the launch when it does not fit the machine.
std::vector<Token> loadTokens(const Program& program, const Dim3& grid, const Dim3& block,
                              const std::vector<uint32_t>& global = {});

// True when the slot's instruction makes the model write VAL records: the value it writes into rd != r0,
// the value a store writes to memory, or the old word an atomic add reads (what rd receives).
bool producesValue(const Instruction& in);

}  // namespace qgpu::gpu
