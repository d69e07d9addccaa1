// The session that replays a recorded run: the interpreter's machine, moved across the recorded events only.
#include <string>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Encoding.h"
#include "qgpu/core/RecordedRun.h"

namespace qgpu {

namespace {

// Why an event cannot be applied to `m` (a thread, register, address or block outside the launch's
// machine), or "".
std::string eventProblem(const StepEvent& e, const MachineState& m, size_t blocks) {
    auto outside = [](long v, size_t size) { return v < 0 || size_t(v) >= size; };
    if (outside(e.warp, size_t(m.warpCount())) || outside(e.block, blocks))
        return "its warp or block is outside the launch";
    for (const RegWrite& w : e.regWrites)
        if (outside(w.thread, m.threads.size()) || outside(w.reg, 16)) return "it writes a register outside the launch";
    for (const MemWrite& w : e.memWrites) {
        bool global = w.space == MemSpace::Global;
        if (!global && outside(w.cta, m.shared.size()))
            return "it writes the shared memory of a block outside the launch";
        if (outside(w.addr, global ? m.global.size() : m.shared[size_t(w.cta)].size()))
            return "it writes a word outside memory";
    }
    for (const LaneChange& c : e.laneChanges)
        if (outside(c.thread, m.threads.size()) || outside(c.pcBefore, blocks) || outside(c.pcAfter, blocks))
            return "it moves a thread outside the launch or to a block outside the program";
    return {};
}

class RecordedSession : public Session {
public:
    explicit RecordedSession(std::shared_ptr<const RecordedRun> run) : m_run(std::move(run)) {}

    std::string backendName() const override { return "recorded " + m_run->backend + " run"; }
    std::string computedBy() const override { return m_run->backend; }

    void load(const Program& program, const LaunchSpec& launch) override {
        RecordedRun now;
        recordMachine(now, program, launch);
        if (now.rom != m_run->rom)
            throw DiagnosticError(Diagnostic{
                "", 0, 0,
                "the kernel built now is not the one the run was recorded on (its machine code differs): undo the "
                "edits to the source, or choose a live backend"});
        if (now.initialGlobal != m_run->initialGlobal)
            throw DiagnosticError(Diagnostic{"", 0, 0,
                                             "the launch's arguments are not those the run was recorded with (memory "
                                             "differs before the first step): undo the edits to the launch, or "
                                             "choose a live backend"});
        MachineSpec spec = MachineSpec::standard();
        auto interp = std::make_unique<Interpreter>(linkLaunch(program, launch, spec).program, launch, spec);
        checkEvents(*interp);
        m_interp = std::move(interp);
        m_position = 0;
    }
    bool loaded() const override { return m_interp != nullptr; }
    void reset() override {
        requireLoaded();
        while (m_position > 0) m_interp->apply(m_run->steps[size_t(--m_position)], false);
    }

    StopReason step() override {
        requireLoaded();
        if (m_position == int(m_run->steps.size())) return endReason();
        m_interp->apply(m_run->steps[size_t(m_position++)], true);
        return m_position == int(m_run->steps.size()) ? endReason() : StopReason::Step;
    }
    StopReason stepBack() override {
        requireLoaded();
        if (m_position == 0) return StopReason::AtStart;
        m_interp->apply(m_run->steps[size_t(--m_position)], false);
        return m_position == 0 ? StopReason::AtStart : StopReason::Step;
    }

    const MachineState& snapshot() const override { return m_interp ? m_interp->state() : m_empty; }
    const std::vector<StepEvent>& history() const override { return m_run->steps; }
    int position() const override { return m_position; }
    NextStep peek() const override {
        if (!m_interp || m_position == int(m_run->steps.size())) return {};
        const StepEvent& e = m_run->steps[size_t(m_position)];
        return {e.warp, e.block, e.maskBefore};
    }
    TokenStream tokens() const override {
        TokenStream t = m_run->tokens;
        const auto& after = t.writtenAfterStep;
        t.writtenNow = m_position > 0 && size_t(m_position) <= after.size() ? after[size_t(m_position - 1)] : 0;
        return t;
    }
    RomImage rom() const override {
        RomImage image;
        image.words = m_run->rom;
        image.terminatorExtra.assign(image.words.size(), 0);
        return image;
    }

private:
    // Every event applies to this launch's machine, in order: a file edited by hand cannot index past it.
    void checkEvents(const Interpreter& interp) const {
        const MachineState& m = interp.state();
        size_t blocks = interp.program().blocks.size();
        const std::vector<size_t>& after = m_run->tokens.writtenAfterStep;
        if (!after.empty() && after.size() != m_run->steps.size())
            throw DiagnosticError(Diagnostic{"", 0, 0, "the run's tokens do not match its steps: the file is damaged"});
        for (size_t i = 0; i < m_run->steps.size(); ++i) {
            std::string problem = eventProblem(m_run->steps[i], m, blocks);
            if (int(i) != m_run->steps[i].step) problem = "it is numbered " + std::to_string(m_run->steps[i].step);
            if (!after.empty() && (after[i] > m_run->tokens.written.size() || (i > 0 && after[i] < after[i - 1])))
                problem = "its tokens end outside the recorded stream";
            if (!problem.empty())
                throw DiagnosticError(Diagnostic{"", 0, 0,
                                                 "recorded step " + std::to_string(i) + " does not fit this launch (" +
                                                     problem +
                                                     "): the file is damaged or was made for another launch"});
        }
    }
    void requireLoaded() const {
        if (!m_interp) throw DiagnosticError(Diagnostic{"", 0, 0, "no program is loaded; load a kernel first"});
    }
    StopReason endReason() const {  // a recording that ends before the launch did stops as a run at its limit
        RunState r = m_interp->state().run;
        return r == RunState::Faulted    ? StopReason::Faulted
               : r == RunState::Finished ? StopReason::Finished
                                         : StopReason::StepLimit;
    }

    std::shared_ptr<const RecordedRun> m_run;
    std::unique_ptr<Interpreter> m_interp;
    int m_position = 0;
    MachineState m_empty;
};

}  // namespace

std::unique_ptr<Session> makeRecordedSession(std::shared_ptr<const RecordedRun> run) {
    return std::make_unique<RecordedSession>(std::move(run));
}

}  // namespace qgpu
