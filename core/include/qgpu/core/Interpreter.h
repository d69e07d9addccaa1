// The reference SIMT interpreter: the definition of the machine that every other backend must match.
#pragma once

#include "qgpu/core/ArrayBounds.h"
#include "qgpu/core/Isa.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineSpec.h"
#include "qgpu/core/MachineState.h"

namespace qgpu {

struct NextStep {
    int warp = -1;  // -1: nothing can run
    int block = 0;
    uint8_t mask = 0;
};

class Interpreter {
public:
    // `program` must be linked against `launch` (see linkLaunch).
    Interpreter(Program program, LaunchSpec launch, MachineSpec spec = MachineSpec::standard());

    const MachineState& state() const { return m_state; }
    const Program& program() const { return m_program; }
    const LaunchSpec& launch() const { return m_launch; }
    const MachineSpec& spec() const { return m_spec; }
    const MemoryMap& memoryMap() const { return m_map; }
    bool done() const { return m_state.run != RunState::Running; }

    // What the scheduler picks next: the lowest warp with a live lane, its lowest lane PC.
    NextStep peek() const;
    // Executes one step. A fault (a barrier reached by part of a warp's live lanes) ends the launch after
    // the step: the state is as the step left it, with RunState::Faulted and the event's fault.
    StepEvent step();
    // Moves the state across a recorded event: forward re-applies it, backward undoes it.
    void apply(const StepEvent& ev, bool forward);

    uint32_t specialReg(int thread, SpecialReg r) const;

private:
    // The initial words of the program's global variable `name` (Program::globals).
    std::vector<int32_t> globalWords(const std::string& name) const;
    struct Exec;                                              // per-step working set
    void execute(Exec& x, const Instruction& in, int instr);  // instr: index in the block body
    void executeShuffle(Exec& x, const Instruction& in, int instr);
    void terminate(Exec& x, const Instruction& term);
    void releaseBarrierIfComplete(Exec& x);
    uint8_t maskOf(int warp) const;
    std::vector<uint32_t>& memory(MemSpace space, int cta);
    int wordIndex(MemSpace space, uint32_t addr, Exec& x, int lane, int instr);  // wraps, with a warning
    // A global access that leaves the array its address points into gets an out-of-bounds warning.
    void checkBounds(Exec& x, const Instruction& in, int instr, int lane, uint32_t address);
    void storeWord(Exec& x, MemSpace space, int index, uint32_t value, int thread);

    Program m_program;
    LaunchSpec m_launch;
    MachineSpec m_spec;
    MemoryMap m_map;
    MachineState m_state;
    ArrayBounds m_bounds;  // the out-of-bounds check, followed as step() executes (apply() replays events only)
};

// The fault of a barrier reached by the lanes `arrived` of a warp while its other live lanes are elsewhere:
// `elsewhere` holds (lane, block) for each of them. Both backends report it in these words.
std::string divergentBarrierFault(int warp, int cta, int block, uint8_t arrived,
                                  const std::vector<std::pair<int, int>>& elsewhere);

// Executes a whole launch; throws DiagnosticError if the machine faults or exceeds maxSteps.
MachineState runToCompletion(Interpreter& interp, int maxSteps = 1000000);

}  // namespace qgpu
