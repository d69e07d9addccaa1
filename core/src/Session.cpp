#include "qgpu/core/Session.h"

#include "qgpu/core/Diagnostic.h"

namespace qgpu {

StopReason Session::run(int maxSteps) {
    for (int n = 1;; ++n) {
        StopReason r = step();
        if (r != StopReason::Step) return r;
        if (atBreakpoint()) return StopReason::Breakpoint;
        if (n >= maxSteps) return StopReason::StepLimit;
    }
}

StopReason Session::runBack() {
    for (;;) {
        StopReason r = stepBack();
        if (r != StopReason::Step) return r;
        if (atBreakpoint()) return StopReason::Breakpoint;
    }
}

StateHead Session::stateHead(int layer, int head) const {
    StateHead h;
    h.layer = layer;
    h.head = head;
    return h;
}

bool Session::atBreakpoint() const {
    NextStep n = peek();
    if (n.warp < 0) return false;
    return breakpoints.count({n.block, -1}) || breakpoints.count({n.block, n.warp});
}

namespace {

class ReferenceSession : public Session {
public:
    explicit ReferenceSession(MachineSpec spec) : m_spec(spec) {}

    std::string backendName() const override { return "reference"; }

    void load(const Program& program, const LaunchSpec& launch) override {
        MemoryMap map = validateLaunch(launch, m_spec);
        m_interp = std::make_unique<Interpreter>(linkProgram(program, launch, map, m_spec), launch, m_spec);
        m_history.clear();
        m_position = 0;
    }

    bool loaded() const override { return m_interp != nullptr; }

    void reset() override {
        requireLoaded();
        m_interp = std::make_unique<Interpreter>(m_interp->program(), m_interp->launch(), m_spec);
        m_position = 0;  // history is kept: stepping forward replays it
    }

    StopReason step() override {
        requireLoaded();
        if (m_position < int(m_history.size())) {
            m_interp->apply(m_history[size_t(m_position++)], true);
        } else {
            if (m_interp->done()) return endReason();
            StepEvent ev = m_interp->step();
            if (!ev.fault.empty()) return StopReason::Faulted;
            m_history.push_back(std::move(ev));
            ++m_position;
        }
        return m_interp->done() ? endReason() : StopReason::Step;
    }

    StopReason stepBack() override {
        requireLoaded();
        if (m_position == 0) return StopReason::AtStart;
        m_interp->apply(m_history[size_t(--m_position)], false);
        return m_position == 0 ? StopReason::AtStart : StopReason::Step;
    }

    const MachineState& snapshot() const override { return m_interp ? m_interp->state() : m_empty; }
    const std::vector<StepEvent>& history() const override { return m_history; }
    int position() const override { return m_position; }
    NextStep peek() const override { return m_interp ? m_interp->peek() : NextStep{}; }

private:
    void requireLoaded() const {
        if (!m_interp) throw DiagnosticError(Diagnostic{"", 0, 0, "no program is loaded; load a kernel first"});
    }
    StopReason endReason() const {
        return m_interp->state().run == RunState::Faulted ? StopReason::Faulted : StopReason::Finished;
    }
    MachineSpec m_spec;
    std::unique_ptr<Interpreter> m_interp;
    std::vector<StepEvent> m_history;
    int m_position = 0;
    MachineState m_empty;
};

}  // namespace

std::unique_ptr<Session> makeReferenceSession(MachineSpec spec) { return std::make_unique<ReferenceSession>(spec); }

}  // namespace qgpu
