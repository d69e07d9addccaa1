// The debugger's one API to a machine backend: load, step, step back, run to a breakpoint, snapshot.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "qgpu/core/Interpreter.h"

namespace qgpu {

enum class StopReason { Step, Breakpoint, Finished, Faulted, StepLimit, AtStart };

struct Breakpoint {
    int block = 0;
    int warp = -1;  // -1: any warp
    bool operator<(const Breakpoint& o) const { return block != o.block ? block < o.block : warp < o.warp; }
};

// The tokens of a launch in the model (the model backend): what the host fed, what the model wrote so far,
// and how many had been written when each step ended.
struct TokenStream {
    std::vector<std::string> fed, written;
    std::vector<size_t> writtenAfterStep;
};

class Session {
public:
    virtual ~Session() = default;
    virtual std::string backendName() const = 0;

    // Links and loads a program; resets to step 0. Throws DiagnosticError on bad input.
    virtual void load(const Program& program, const LaunchSpec& launch) = 0;
    virtual bool loaded() const = 0;
    virtual void reset() = 0;

    // Forward one step: replays recorded history if the position is behind, else executes.
    virtual StopReason step() = 0;
    // Back one step from recorded history (no re-execution).
    virtual StopReason stepBack() = 0;
    // Forward until a breakpoint (the next step's block and warp), the end, a fault or the limit.
    virtual StopReason run(int maxSteps = 1000000);
    virtual StopReason runBack();  // back until a breakpoint or the start

    virtual const MachineState& snapshot() const = 0;
    virtual const std::vector<StepEvent>& history() const = 0;
    virtual int position() const = 0;  // events applied so far
    virtual NextStep peek() const = 0;
    // Empty for a backend that writes no tokens (the reference interpreter).
    virtual TokenStream tokens() const { return {}; }

    std::set<Breakpoint> breakpoints;

protected:
    bool atBreakpoint() const;  // the next step runs a block with a breakpoint
};

std::unique_ptr<Session> makeReferenceSession(MachineSpec spec = MachineSpec::standard());

}  // namespace qgpu
