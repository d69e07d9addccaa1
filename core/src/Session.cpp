#include "qgpu/core/Session.h"

#include <algorithm>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Encoding.h"
#include "qgpu/core/Trace.h"

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

std::string Session::rowMeaning(int, int, int) const { return {}; }

bool Session::atBreakpoint() const {
    NextStep n = peek();
    if (n.warp < 0) return false;
    return breakpoints.count({n.block, -1}) || breakpoints.count({n.block, n.warp});
}

namespace {

// What differs between two machines (a's value first), at most `limit` lines.
std::vector<std::string> differences(const MachineState& a, const MachineState& b, NextStep na, NextStep nb) {
    constexpr size_t kLimit = 24;
    std::vector<std::string> out;
    auto add = [&](const std::string& line) {
        if (out.size() < kLimit) out.push_back(line);
    };
    auto word = [](uint32_t v) { return std::to_string(int32_t(v)); };
    if (a.threads.size() != b.threads.size()) add("the launches have different thread counts");
    for (size_t t = 0; t < std::min(a.threads.size(), b.threads.size()); ++t) {
        const ThreadState &x = a.threads[t], &y = b.threads[t];
        std::string who = "thread " + std::to_string(t);
        if (x.status != y.status) add(who + " status: " + laneStatusName(x.status) + " vs " + laneStatusName(y.status));
        if (y.status == LaneStatus::Absent) continue;
        if (x.pc != y.pc && x.status != LaneStatus::Exited && y.status != LaneStatus::Exited)
            add(who + " pc: b" + std::to_string(x.pc) + " vs b" + std::to_string(y.pc));
        for (size_t r = 1; r < x.regs.size(); ++r)
            if (x.regs[r] != y.regs[r])
                add(who + " r" + std::to_string(r) + ": " + word(x.regs[r]) + " vs " + word(y.regs[r]));
    }
    for (size_t i = 0; i < std::min(a.global.size(), b.global.size()); ++i)
        if (a.global[i] != b.global[i])
            add("global[" + std::to_string(i) + "]: " + word(a.global[i]) + " vs " + word(b.global[i]));
    for (size_t c = 0; c < std::min(a.shared.size(), b.shared.size()); ++c)
        for (size_t i = 0; i < std::min(a.shared[c].size(), b.shared[c].size()); ++i)
            if (a.shared[c][i] != b.shared[c][i])
                add("shared[cta " + std::to_string(c) + "][" + std::to_string(i) + "]: " + word(a.shared[c][i]) +
                    " vs " + word(b.shared[c][i]));
    if (na.warp != nb.warp || na.block != nb.block || na.mask != nb.mask) {
        auto next = [](NextStep n) {
            return n.warp < 0 ? std::string("the end")
                              : "warp " + std::to_string(n.warp) + " block " + std::to_string(n.block) + " mask " +
                                    std::to_string(n.mask);
        };
        add("next step: " + next(na) + " vs " + next(nb));
    }
    return out;
}

}  // namespace

SessionComparer::SessionComparer(Session& a, Session& b) : m_a(a), m_b(b) {
    m_a.reset();
    m_b.reset();
    m_done = differ();
}

bool SessionComparer::differ() {
    m_result.differences = differences(m_a.snapshot(), m_b.snapshot(), m_a.peek(), m_b.peek());
    if (!m_result.differences.empty()) m_result.step = m_a.position();
    return !m_result.differences.empty();
}

bool SessionComparer::advance(int steps) {
    for (int i = 0; !m_done && i < steps; ++i) {
        StopReason ra = m_a.step(), rb = m_b.step();
        ++m_result.stepsCompared;
        if (ra != rb) {
            differ();
            m_result.step = m_a.position();
            m_result.differences.insert(m_result.differences.begin(), "one backend stopped here and the other did not");
            m_done = true;
        } else {
            m_done = differ() || ra != StopReason::Step;  // both ended here: the last machines decided
        }
    }
    return m_done;
}

Divergence compareSessions(Session& a, Session& b, int maxSteps) {
    SessionComparer c(a, b);
    c.advance(maxSteps);
    return c.result();
}

namespace {

class ReferenceSession : public Session {
public:
    explicit ReferenceSession(MachineSpec spec) : m_spec(spec) {}

    std::string backendName() const override { return "reference"; }

    void load(const Program& program, const LaunchSpec& launch) override {
        m_interp = std::make_unique<Interpreter>(linkLaunch(program, launch, m_spec).program, launch, m_spec);
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
            m_history.push_back(m_interp->step());
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

    RomImage rom() const override {  // the interpreter runs decoded blocks: their encoding is its ROM
        RomImage image;
        if (!m_interp) return image;
        for (const Block& b : m_interp->program().blocks) image.words.push_back(encodeBlock(b, m_spec.slotsPerBlock));
        image.terminatorExtra.assign(image.words.size(), 0);
        return image;
    }
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
