// Private to the machine's builder (compiler/src/gpu/Machine*.cpp): what its parts share. Machine.cpp
// makes the inputs and the output code, MachineControl.cpp the control (what the next record is, block
// ends, the min-PC rule), MachineDatapath.cpp the value of the next record (registers, ALU, memory).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "qgpu/compiler/circuit/Scheduler.h"
#include "qgpu/compiler/gpu/Machine.h"

namespace qgpu::gpu::detail {

using circuit::Circuit;
using circuit::Scheduler;
using Value = Scheduler::Value;
using Dims = Scheduler::Dims;
using Terms = std::vector<std::pair<int, int>>;

// Terms that are all satisfied exactly when bits[first..first+n) spell `value`; returns how many of
// them are +1 (the threshold's required count).
inline int spell(Terms& terms, const std::vector<int>& bits, int first, int n, uint32_t value) {
    int ones = 0;
    for (int i = 0; i < n; ++i) {
        bool set = value >> i & 1;
        terms.push_back({bits[size_t(first + i)], set ? 1 : -1});
        ones += set;
    }
    return ones;
}

// out := all terms hold (each +1 term true, each -1 term false) plus `ones` more +1 terms' worth.
inline void all(Circuit& c, int layer, const Terms& terms, int required, int out) {
    c.threshold(layer, terms, -required, out);
}

// sum_i 2^i t_i over bits[first..first+n), plus `plus`: a field of a word as an integer.
inline circuit::Linear field(const Circuit& c, const std::vector<int>& bits, int first, int n, double plus = 0) {
    circuit::Linear v{{}, plus};
    for (int i = 0; i < n; ++i) v.add(c.truth(bits[size_t(first + i)]), double(1 << i));
    return v;
}

// Where the launch words keep their fields (gpu::shapeWord): x-1, y-1, z-1, the count - 1, the warps - 1.
enum ShapeField { ShapeX = 0, ShapeY = 5, ShapeZ = 10, ShapeCount = 15, ShapeWarps = 20 };

// Code dims: what the next token is. All chip tokens share them, so the right one wins by 2 per differing bit.
enum Code {
    IsVal = 0,
    IsExec = 1,
    IsEnd = 2,
    SlotBits = 3,
    LaneBits = 7,
    ByteBits = 11,
    ValueBits = 15,
    BlockBits = 23,
    WarpBits = BlockBits + kBlockBits,
    MaskBits = WarpBits + kWarpBits,
    IsRelease = MaskBits + 4,
    EpochBit,
    IsLast,   // a VAL that ends its value (the bytes above repeat its bit 7)
    IsFault,  // FAULT: a barrier reached by part of the warp's live lanes; MaskBits: the others
    CodeWidth
};

struct Inputs {
    Value any, exec, blockDim, gridDim, release, epoch, rom, mem, valMid, val3, assemble, pos, slot, lane, kNext, vdata,
        x, code;
    std::vector<Value> byte;
};

// The control part's values the other parts read.
struct Control {
    Value execR, blockR, gridR;  // the current EXEC word (block, warp, lanes) and the launch's shape words
    Value epochR;                // the barrier epoch's parity (RELEASE flips it)
    Value assembled;             // the four scratch bytes as one word (ROM and MEM writes, completed values)
    Value fieldsCur, termFields, termImm;
    std::vector<Value> cand;              // candidates (16), jmp, exit, br
    std::vector<Value> next;              // the next (slot, lane) after this record (16), the block has ended
    std::vector<Value> route;             // the next record's position (16), its byte (4), it is a VAL
    Value fieldsNext, immNext, laneNext;  // the next record's instruction and lane
    // The register file: row (g mod 8) * 16 + r and bank lane * 4 + g / 8 of warp g's register r (2048
    // registers in 16 heads). Rows are keyed by two factors: warpLow (g mod 8, one-hot) and a register
    // one-hot. A completed value writes register regWrite (its rd) in the bank of its lane (regWriteBank),
    // and in the four banks of that lane's own copies (rcWriteBanks: read for `br` and for shuffles).
    Value warpLow, warpHigh;  // one-hot: g mod 8, g / 8
    Value regWrite, regWriteBank;
    std::vector<Value> rcWriteBanks;
};
Control buildControl(Scheduler& s, const Inputs& in);

// A copy of the register file (16 banks of 128 rows) read at register `readRows` (one-hot) of the current
// warp, in the given bank.
inline Value registerFile(Scheduler& s, const std::string& name, const Control& ctl, Value readRows, Value readBank) {
    return s.bankedMemory(name, 16, {ctl.warpLow, ctl.regWrite}, ctl.assembled, {ctl.warpLow, readRows},
                          ctl.regWriteBank, readBank);
}

// The current warp g (from the EXEC word) and the launch's shape: which thread block and warp of it g is,
// which of its lanes exist, and what comes after it.
struct Warps {
    Value cta, warp;          // integers: g's thread block, and g's index inside it
    Value row;                // 32 bits, one-hot: g (the rows of the lane memories)
    Value present;            // 4 bits: lane l exists (4 warp + l < threads per block)
    Value sameBlock;          // 1 bit: g is not its thread block's last warp
    Value nextCta;            // 1 bit: a thread block follows g's
    Value nextWarp, nextRow;  // 5 bits and a 32-bit one-hot: the warp the model visits after g (g + 1; on
                              // RELEASE, the first warp of g's thread block)
    Value nextMask;           // 4 bits: the lanes that warp has
    Value ctaLow, ctaHigh;    // one-hot: cta mod 2, cta / 2 (the rows and banks of shared memory)
};
Warps buildWarps(Scheduler& s, const Control& ctl, Value release);
// The special registers' values (32 bits) for the next record's lane: `which` is sreg's one-hot.
Value buildSpecialRegisters(Scheduler& s, const Control& ctl, const Warps& warps, Value which);

// Per-lane pc and status, updated at block ends, and the min-PC rule's verdict, for the current warp and
// for the warp the model visits next.
struct MinPc {
    std::vector<Value> lanes;  // each lane's state (LaneStateField)
    Value running;             // 4 bits: lane l runs (present, not exited, not waiting in this epoch)
    Value minima, anyRunning;  // the running lanes at the smallest pc (4), any lane runs
    Value firstMin;            // the lowest of those lanes (one-hot)
    Value waiting;             // 4 bits: lane l waits at the barrier of this epoch
};
struct Lanes {
    MinPc current, next;
    Value barrierWaiting;  // a lane of the current thread block waits at the barrier
};
Lanes buildLanes(Scheduler& s, const Inputs& in, const Control& ctl, const Warps& warps);

// The value of the next record: the ALU's result, the word a load or atomic reads, or a shuffle's source.
// Stores and atomics write global or shared memory at their completed value.
Value buildDatapath(Scheduler& s, const Inputs& in, const Control& ctl, const Warps& warps);

}  // namespace qgpu::gpu::detail
