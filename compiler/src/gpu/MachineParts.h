// Private to the machine's builder (compiler/src/gpu/Machine*.cpp): what its parts share. Machine.cpp
// makes the inputs and the output code, MachineControl.cpp the control (what the next record is, block
// ends, the min-PC rule), MachineDatapath.cpp the value of the next record (registers, ALU, memory).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "qgpu/compiler/circuit/Scheduler.h"

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
    WarpBits = 28,
    MaskBits = 33,
    CodeWidth = 37
};

struct Inputs {
    Value any, exec, launch, rom, mem, valMid, val3, assemble, pos, slot, lane, kNext, vdata, x, code;
    std::vector<Value> byte;
};

// The control part's values the other parts read.
struct Control {
    Value execR, launchR;        // the current EXEC word (block, warp, lanes) and the launch word
    Value assembled;             // the four scratch bytes as one word (ROM and MEM writes, completed values)
    std::vector<Value> romKeys;  // ROM write rows: body fields, body imm, terminator fields, terminator imm
    std::vector<Value> rows;     // ROM read rows: the completed value's slot, the current block's terminator
    Value fieldsCur, termFields, termImm;
    std::vector<Value> cand;              // candidates (16), jmp, exit, br
    std::vector<Value> next;              // the next (slot, lane) after this record (16), the block has ended
    std::vector<Value> route;             // the next record's position (16), its byte (4), it is a VAL
    Value fieldsNext, immNext, laneNext;  // the next record's instruction and lane
    Value regWrite;                       // register-file row a completed value writes
};
Control buildControl(Scheduler& s, const Inputs& in);

// Per-lane pc and status, updated at block ends, and the min-PC rule's verdict.
struct Lanes {
    std::vector<Value> lanes;   // each lane's state: pc (5 bits), running
    std::vector<Value> minima;  // the lanes at the smallest running pc (4), any lane runs
    Value firstMin;             // the lowest of those lanes (one-hot)
};
Lanes buildLanes(Scheduler& s, const Inputs& in, const Control& ctl);

// The value of the next record: the ALU's result, or the word a load or atomic reads. Stores and atomics
// write global memory at their completed value.
Value buildDatapath(Scheduler& s, const Inputs& in, const Control& ctl);

}  // namespace qgpu::gpu::detail
