// The machine's architectural state and the events one step produces (consumed by the debugger,
// the CLI and the model's replay check).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/core/Isa.h"

namespace qgpu {

enum class LaneStatus : uint8_t {
    Absent,  // the slot of a partial warp beyond blockDim: never runs
    Live,
    AtBarrier,  // waiting for the rest of its thread block
    Exited
};

struct ThreadState {
    std::array<uint32_t, 16> regs{};
    int pc = 0;  // ROM block index this lane executes next
    LaneStatus status = LaneStatus::Absent;
};

enum class RunState : uint8_t { Running, Finished, Faulted };

// Thread slot = globalWarp * lanesPerWarp + lane; globalWarp = cta * warpsPerBlock + warpInBlock.
struct MachineState {
    int lanesPerWarp = 4;
    int warpsPerBlock = 1;
    std::vector<ThreadState> threads;
    std::vector<uint32_t> global;
    std::vector<std::vector<uint32_t>> shared;  // per thread block
    int steps = 0;
    RunState run = RunState::Running;
    std::string fault;

    int warpCount() const { return int(threads.size()) / lanesPerWarp; }
    const ThreadState& lane(int warp, int lane) const { return threads[warp * lanesPerWarp + lane]; }
};

enum class MemSpace : uint8_t { Global, Shared };

struct RegWrite {
    int thread = 0;  // slot
    int reg = 0;
    uint32_t before = 0, after = 0;
};

struct MemWrite {
    MemSpace space = MemSpace::Global;
    int cta = 0;  // thread block, for shared memory
    int addr = 0;
    uint32_t before = 0, after = 0;
    int thread = 0;  // the slot that wrote
};

struct LaneChange {
    int thread = 0;
    int pcBefore = 0, pcAfter = 0;
    LaneStatus statusBefore = LaneStatus::Live, statusAfter = LaneStatus::Live;
};

// A lane's instruction did what CUDA leaves undefined or the machine cannot do, and the machine did its
// documented thing instead (docs/isa.md): an address outside memory wrapped, a shuffle from an inactive lane
// (the reader keeps its own value), or a `warn` instruction's check (a division by zero, a full call stack).
// The interpreter also reports a global access that leaves the array its address points into
// (OutOfBounds, ArrayBounds.h), which the machine carries out like any other.
struct StepWarning {
    enum class Kind : uint8_t { AddressWrapped, InactiveLane, Machine, OutOfBounds };
    Kind kind = Kind::Machine;
    MachineWarning code{};  // Kind::Machine: which check
    int instruction = 0;    // the body slot of the step's block
    int lane = 0;
    std::string text;  // what happened: "global address 1030 is outside 0..1023; wrapped to 6"
    std::string describe() const {
        return "instruction " + std::to_string(instruction) + ", lane " + std::to_string(lane) + ": " + text;
    }
};

// One machine step: one warp executes one ROM block with its active lanes.
struct StepEvent {
    int step = 0;            // index of this step in the launch, from 0
    int warp = 0;            // global warp
    int cta = 0;             // thread block of the warp
    int block = 0;           // ROM block executed
    uint8_t liveBefore = 0;  // lanes of the warp that were live (not exited, not at a barrier)
    uint8_t maskBefore = 0;  // lanes that executed the block; a subset of liveBefore means divergence
    uint8_t maskAfter = 0;   // lanes the warp would run at its next step (0 if none)
    bool barrierReleased = false;
    std::vector<RegWrite> regWrites;
    std::vector<MemWrite> memWrites;
    std::vector<LaneChange> laneChanges;
    std::vector<StepWarning> warnings;
    std::string fault;  // non-empty: the machine stopped here (state left as before the step)
};

}  // namespace qgpu
