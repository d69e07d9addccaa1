// The debugger's one API to a machine backend: load, step, step back, run to a breakpoint, snapshot.
#pragma once

#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "qgpu/core/Interpreter.h"
#include "qgpu/core/TokenTrace.h"

namespace qgpu {

enum class StopReason { Step, Breakpoint, Finished, Faulted, StepLimit, AtStart };

struct Breakpoint {
    int block = 0;
    int warp = -1;  // -1: any warp
    bool operator<(const Breakpoint& o) const { return block != o.block ? block < o.block : warp < o.warp; }
};

// The tokens of a launch in the model (the model backend): what the host fed, what the model wrote so far,
// how many had been written when each step ended, and how many at the moment the debugger shows.
struct TokenStream {
    std::vector<std::string> fed, written;
    std::vector<size_t> writtenAfterStep;
    size_t writtenNow = 0;
};

// The model backend's recurrent state: which memory of the machine each layer's head holds, and one head's
// matrix at the current step with every row's meaning and its value read as a 32-bit word.
struct StateLayout {
    int layers = 0, heads = 0;
    std::vector<std::string> memories;  // [layer * heads + head]; "" for a head the machine leaves unused
};
struct StateHead {
    int layer = 0, head = 0;
    std::string memory;
    int rows = 0, cols = 0;
    std::vector<float> values;           // rows x cols, row-major
    std::vector<std::string> rowLabels;  // e.g. "warp 1, lane 0, r5"
    std::vector<uint32_t> rowWords;      // each row's dual rails read as a word
};

// The program ROM as a backend holds it: per block, the body words then the terminator, in encodeBlock's
// layout (docs/isa.md). `terminatorExtra`: per block, bits a backend keeps in the terminator word beside
// the encoding (the model's writes mask), cleared from `words`; 0 where it keeps none.
struct RomImage {
    std::vector<std::vector<uint64_t>> words;
    std::vector<uint64_t> terminatorExtra;
};

class Session {
public:
    virtual ~Session() = default;
    virtual std::string backendName() const = 0;
    // The backend that computed the steps: this one, or for a recorded run the one that recorded them.
    virtual std::string computedBy() const { return backendName(); }

    // Links and loads a program; resets to step 0. Throws DiagnosticError on bad input.
    virtual void load(const Program& program, const LaunchSpec& launch) = 0;
    virtual bool loaded() const = 0;
    virtual void reset() = 0;

    // Forward one step: replays recorded history if the position is behind, else executes.
    virtual StopReason step() = 0;
    // Back one step from recorded history (no re-execution).
    virtual StopReason stepBack() = 0;
    // Forward one token (a backend with a token stream): the snapshot shows the machine mid-step, and the
    // position moves when the step's last token is written (or, behind in recorded history, shown). A
    // backend without tokens takes one whole step.
    virtual StopReason stepToken() { return step(); }
    // Back one token (mid-step where the step has more than one); one whole step where there are no tokens.
    virtual StopReason stepBackToken() { return stepBack(); }
    // Forward until a breakpoint (the next step's block and warp), the end, a fault or the limit.
    virtual StopReason run(int maxSteps = 1000000);
    virtual StopReason runBack();  // back until a breakpoint or the start

    virtual const MachineState& snapshot() const = 0;
    virtual const std::vector<StepEvent>& history() const = 0;
    virtual int position() const = 0;  // events applied so far
    virtual NextStep peek() const = 0;
    // Empty for a backend that writes no tokens (the reference interpreter).
    virtual TokenStream tokens() const { return {}; }
    // Empty for a backend without a recurrent state.
    virtual StateLayout stateLayout() const { return {}; }
    virtual StateHead stateHead(int layer, int head) const;  // at the current step, from recorded history
    // What a row of a head's memory holds ("warp 0, lane 1, r3"); "" for a backend without a state.
    virtual std::string rowMeaning(int layer, int head, int row) const;
    // The ROM as this backend holds it (the model: decoded from its recurrent state); empty before load
    // and for a backend without one.
    virtual RomImage rom() const { return {}; }
    // What the model does, layer by layer, with the token that goes in at the point shown, and the residual's
    // layout to decode it with; empty for a backend without a model.
    virtual TokenTrace tokenTrace() const { return {}; }
    virtual std::vector<ResidualField> residualFields() const { return {}; }

    std::set<Breakpoint> breakpoints;
    bool atBreakpoint() const;  // the next step runs a block with a breakpoint
};

std::unique_ptr<Session> makeReferenceSession(MachineSpec spec = MachineSpec::standard());

// The side-by-side diff of two backends running the same launch: both go back to the start and step in
// lockstep; the comparison stops at the first step after which their machines differ (registers of every
// thread, pcs of lanes that have not exited, lane statuses, global and shared memory, the next step) and
// leaves both there. `step` is -1 when they agree to the end (or for `maxSteps` steps).
struct Divergence {
    int step = -1;  // the position at which they first differ
    int stepsCompared = 0;
    std::vector<std::string> differences;  // "thread 5 r3: 7 vs 9", at most a screenful
};
Divergence compareSessions(Session& a, Session& b, int maxSteps = 100000);

// compareSessions a slice at a time, for a caller that must stay responsive (the studio).
class SessionComparer {
public:
    SessionComparer(Session& a, Session& b);  // both go back to the start; their first machines are compared
    // Steps both and compares, up to `steps` times; true once the comparison is over.
    bool advance(int steps);
    bool done() const { return m_done; }
    const Divergence& result() const { return m_result; }

private:
    bool differ();
    Session &m_a, &m_b;
    Divergence m_result;
    bool m_done = false;
};

}  // namespace qgpu
