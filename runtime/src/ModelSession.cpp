#include "qgpu/runtime/ModelSession.h"

#include <algorithm>
#include <set>
#include <optional>
#include <utility>

#include "qgpu/compiler/gpu/Alphabet.h"
#include "qgpu/core/Diagnostic.h"

namespace qgpu {

namespace {

constexpr size_t kMaxTokens = 200000;  // a launch that has not ended by then has an endless loop

class ModelSession : public Session {
public:
    explicit ModelSession(const GpuModel& model) : m_model(model) {}

    std::string backendName() const override { return "model"; }

    void load(const Program& program, const LaunchSpec& launch) override {
        MachineSpec spec = MachineSpec::standard();
        Program linked = linkLaunch(program, launch, spec).program;
        // The arguments placed in memory: the interpreter's initial state is the memory map filled in.
        std::vector<uint32_t> initial = Interpreter(linked, launch, spec).state().global;
        m_stepper = std::make_unique<GpuStepper>(m_model, linked, launch.grid, launch.block, initial);
        m_stepper->logRows();
        m_convUsed = m_stepper->convStateUsed();
        m_convAtStep = {convValues()};
        m_rom = decodedRom(linked.blocks.size());
        m_states = {m_stepper->decode()};
        m_latest = m_stepper->recurrent();
        m_stateChanges.clear();
        m_states[0].run = m_stepper->next().kind == gpu::Kind::End ? RunState::Finished : RunState::Running;
        m_history.clear();
        m_writtenAfterStep.clear();
        m_position = 0;
        m_pending = 0;
        m_pendingReleased = false;
        m_partialAt.reset();
        m_replay.reset();
    }

    bool loaded() const override { return m_stepper != nullptr; }

    RomImage rom() const override { return m_rom; }

    void reset() override {
        requireLoaded();
        m_position = 0;  // history is kept: stepping forward replays it
        m_partialAt.reset();
    }

    StopReason step() override {
        requireLoaded();
        m_partialAt.reset();
        if (m_position == int(m_history.size())) {
            if (m_states.back().run != RunState::Running) return endReason();
            while (!writeToken()) {
            }
            finishStep();
        }
        ++m_position;
        return snapshot().run == RunState::Running ? StopReason::Step : endReason();
    }

    StopReason stepToken() override {
        requireLoaded();
        bool live = m_position == int(m_history.size());
        if (live && m_states.back().run != RunState::Running) return endReason();
        size_t target = shownWritten() + 1;
        if (live && target > m_stepper->written().size() && writeToken()) finishStep();
        if (target == stepEnd(m_position)) {  // the step's last token: the step is whole
            m_partialAt.reset();
            ++m_position;
            return snapshot().run == RunState::Running ? StopReason::Step : endReason();
        }
        showPartial(target);
        return StopReason::Step;
    }

    StopReason stepBack() override {
        requireLoaded();
        if (m_partialAt) {  // back before the tokens shown of the step in progress
            m_partialAt.reset();
            return m_position == 0 ? StopReason::AtStart : StopReason::Step;
        }
        if (m_position == 0) return StopReason::AtStart;
        --m_position;
        return m_position == 0 ? StopReason::AtStart : StopReason::Step;
    }

    StopReason stepBackToken() override {
        requireLoaded();
        if (!m_partialAt && m_position == 0) return StopReason::AtStart;
        if (!m_partialAt) --m_position;  // into the previous step, before its last token
        size_t target = (m_partialAt ? *m_partialAt : stepEnd(m_position)) - 1;
        if (target == stepStart(m_position))
            m_partialAt.reset();
        else
            showPartial(target);
        return m_position == 0 && !m_partialAt ? StopReason::AtStart : StopReason::Step;
    }

    std::string rowMeaning(int layer, int head, int row) const override {
        std::string memory = m_model.memoryAt(layer, head);
        return memory.empty() ? "unused" : gpu::rowMeaning(memory, row);
    }

    std::vector<ResidualField> residualFields() const override {
        std::vector<ResidualField> out;
        for (const circuit::Feature& f : m_model.machine().circuit.features()) {
            ResidualField::Encoding e = f.encoding == circuit::Encoding::Bit       ? ResidualField::Encoding::Bit
                                        : f.encoding == circuit::Encoding::ReadBit ? ResidualField::Encoding::ReadBit
                                                                                   : ResidualField::Encoding::Integer;
            out.push_back({f.name, f.dim, e, f.base, f.born, f.released});
        }
        return out;
    }

    TokenTrace tokenTrace() const override {
        // After the END (or a fault) no token goes in.
        if (!m_stepper ||
            (!m_partialAt && m_position == int(m_history.size()) && m_states.back().run != RunState::Running))
            return {};
        size_t written = shownWritten();
        return m_stepper->trace(written, stateAt(written));
    }

    const MachineState& snapshot() const override {
        if (!m_stepper) return m_empty;
        return m_partialAt ? m_partial : m_states[size_t(m_position)];
    }
    const std::vector<StepEvent>& history() const override { return m_history; }
    int position() const override { return m_position; }

    NextStep peek() const override {
        if (!m_stepper) return {};
        if (m_position < int(m_history.size())) {
            const StepEvent& e = m_history[size_t(m_position)];
            return {e.warp, e.block, e.maskBefore};
        }
        if (m_pending > 0) return {m_pendingExec.warp, m_pendingExec.block, uint8_t(m_pendingExec.mask)};
        const gpu::Token& t = m_stepper->next();
        if (t.kind != gpu::Kind::Exec) return {};
        return {t.warp, t.block, uint8_t(t.mask)};
    }

    TokenStream tokens() const override {
        TokenStream out;
        if (!m_stepper) return out;
        for (const gpu::Token& t : m_stepper->fed()) out.fed.push_back(t.text());
        for (const gpu::Token& t : m_stepper->written()) out.written.push_back(t.text());
        out.writtenAfterStep = m_writtenAfterStep;
        out.writtenNow = shownWritten();
        if (m_states.back().run == RunState::Finished) out.written.push_back(m_stepper->next().text());  // END
        return out;
    }

    StateLayout stateLayout() const override {
        StateLayout out;
        const circuit::Geometry& g = m_model.machine().circuit.geometry();
        out.layers = m_model.machine().circuit.layerCount();
        out.heads = g.linearNumValueHeads;
        for (int l = 0; l < out.layers; ++l)
            for (int h = 0; h < out.heads; ++h) out.memories.push_back(m_model.memoryAt(l, h));
        return out;
    }

    StateHead stateHead(int layer, int head) const override {
        StateHead out = Session::stateHead(layer, head);
        if (!m_stepper || layer < 0 || layer >= int(m_latest.size())) return out;
        const circuit::Geometry& g = m_model.machine().circuit.geometry();
        out.rows = g.linearKeyHeadDim;
        out.cols = g.linearValueHeadDim;
        if (head < 0 || head >= g.linearNumValueHeads) return out;
        size_t size = size_t(out.rows * out.cols);
        // Mid-step, the state at the token shown; else the latest recorded state, with the rows of later steps
        // put back as they were: the state at this step.
        const auto& from = m_partialAt ? stateAt(*m_partialAt).recurrent : m_latest;
        auto first = from[size_t(layer)].begin() + long(size_t(head) * size);
        out.values.assign(first, first + long(size));
        for (size_t s = m_stateChanges.size(); !m_partialAt && s-- > size_t(m_position);)
            for (const RowChange& c : m_stateChanges[s])
                if (c.layer == layer && c.head == head)
                    std::copy(c.before.begin(), c.before.end(), out.values.begin() + long(size_t(c.row * out.cols)));
        out.memory = m_model.memoryAt(layer, head);
        for (int r = 0; r < out.rows; ++r) {
            out.rowLabels.push_back(rowMeaning(layer, head, r));
            out.rowWords.push_back(dualRailWord(out.values.data() + size_t(r * out.cols)));
        }
        return out;
    }

    const GpuStepper* stepper() const { return m_stepper.get(); }

private:
    struct RowChange {
        int layer = 0, head = 0, row = 0;
        std::vector<float> before;
    };

    // The ROM the fed tokens wrote (they all come before the launch starts, so it never changes after
    // load): the program's blocks, and any later block that holds a word (a stray write shows).
    RomImage decodedRom(size_t programBlocks) const {
        std::vector<std::array<uint64_t, 5>> held = m_stepper->decodeRom();
        size_t blocks = programBlocks;
        for (size_t b = programBlocks; b < held.size(); ++b)
            for (uint64_t w : held[b])
                if (w != 0) blocks = b + 1;
        const uint64_t writesMask = uint64_t(15) << gpu::kWritesMaskShift;
        RomImage image;
        for (size_t b = 0; b < blocks && b < held.size(); ++b) {
            std::array<uint64_t, 5> w = held[b];
            image.terminatorExtra.push_back(w[4] & writesMask);
            w[4] &= ~writesMask;
            image.words.emplace_back(w.begin(), w.end());
        }
        return image;
    }

    void requireLoaded() const {
        if (!m_stepper) throw DiagnosticError(Diagnostic{"", 0, 0, "no program is loaded; load a kernel first"});
    }
    StopReason endReason() const {
        return m_states.back().run == RunState::Faulted ? StopReason::Faulted : StopReason::Finished;
    }

    // The model's tokens written when step `step` starts and ends (a step not yet written ends later than
    // any token so far).
    size_t stepStart(int step) const { return step > 0 ? m_writtenAfterStep[size_t(step - 1)] : 0; }
    size_t stepEnd(int step) const {
        return step < int(m_history.size()) ? m_writtenAfterStep[size_t(step)] : size_t(-1);
    }
    size_t shownWritten() const { return m_partialAt ? *m_partialAt : stepStart(m_position); }

    // Shows the machine mid-step, after the first `written` tokens of the model's.
    void showPartial(size_t written) {
        m_partialAt = written;
        m_partial = m_stepper->decode(stateAt(written));
        m_partial.steps = m_position;
        m_partial.run = RunState::Running;
    }

    // The model's state after the first `written` tokens it wrote: its own, or replayed from the state at the
    // start of the step that token is in (the replay is kept: a token step forwards replays one token, one
    // backwards the step up to that token).
    const SparseModel::State& stateAt(size_t written) const {
        if (written == m_stepper->written().size()) return m_stepper->state();
        if (m_replay && m_replay->first == written) return m_replay->second;
        int step = 0;
        while (step < int(m_history.size()) && stepEnd(step) <= written) ++step;
        std::optional<SparseModel::State> start;
        if (!m_replay || m_replay->first > written || m_replay->first < stepStart(step)) start = stateAtStep(step);
        const SparseModel::State& from = start ? *start : m_replay->second;
        size_t fromWritten = start ? stepStart(step) : m_replay->first;
        SparseModel::State s = m_stepper->replayed(written, &from, fromWritten);
        m_replay.emplace(written, std::move(s));
        return m_replay->second;
    }

    // The model's state at the start of a recorded step: the recurrent state put back from the rows later
    // steps changed, and the convolutions' state as it was recorded then.
    SparseModel::State stateAtStep(int step) const {
        const SparseModel::State& now = m_stepper->state();
        SparseModel::State s;
        s.conv = now.conv;
        const std::vector<float>& conv = m_convAtStep[size_t(step)];
        for (size_t l = 0, at = 0; l < m_convUsed.size(); ++l)
            for (size_t place : m_convUsed[l]) s.conv[l][place] = conv[at++];
        s.recurrent = m_latest;
        s.position = int(m_stepper->fed().size() + stepStart(step));  // one per token taken in
        const circuit::Geometry& g = m_model.machine().circuit.geometry();
        size_t rows = size_t(g.linearKeyHeadDim), cols = size_t(g.linearValueHeadDim);
        for (size_t at = m_stateChanges.size(); at-- > size_t(step);)
            for (const RowChange& c : m_stateChanges[at])
                std::copy(c.before.begin(), c.before.end(),
                          s.recurrent[size_t(c.layer)].begin() + long((size_t(c.head) * rows + size_t(c.row)) * cols));
        return s;
    }

    // Lets the model write one token of the next step; true when the step is then whole: an EXEC with
    // lanes, its VALs, and any RELEASE and empty EXEC passes after them.
    bool writeToken() {
        GpuStepper& s = *m_stepper;
        gpu::Token t = s.advance();
        if (m_pending++ == 0) m_pendingExec = t;
        m_pendingReleased = m_pendingReleased || t.kind == gpu::Kind::Release;
        if (s.written().size() >= kMaxTokens) {
            m_states.back().run = RunState::Faulted;
            m_states.back().fault = "the model wrote " + std::to_string(kMaxTokens) +
                                    " tokens without ending the launch; check the kernel for an endless loop";
            return true;
        }
        const gpu::Token& n = s.next();
        return !(n.kind == gpu::Kind::Val || n.kind == gpu::Kind::Release ||
                 (n.kind == gpu::Kind::Exec && n.mask == 0));
    }

    // Records the step just written: the state rows it changed, the machine decoded after it (again only
    // where those rows lie), the event.
    void finishStep() {
        GpuStepper& s = *m_stepper;
        const gpu::Token exec = m_pendingExec;
        const bool released = m_pendingReleased;
        m_pending = 0;
        m_pendingReleased = false;
        const MachineState& before = m_states.back();
        m_stateChanges.push_back(recordStateChanges());
        std::set<std::pair<int, int>> heads;  // those the step changed a row of: the rest decodes as before
        for (const RowChange& c : m_stateChanges.back()) heads.insert({c.layer, c.head});
        MachineState after = s.decodeChanged(before, heads);
        after.steps = int(m_history.size()) + 1;
        after.run = before.run == RunState::Faulted   ? RunState::Faulted
                    : s.next().kind == gpu::Kind::End ? RunState::Finished
                                                      : RunState::Running;
        after.fault = before.fault;
        if (s.next().kind == gpu::Kind::Fault && before.run != RunState::Faulted) {
            after.run = RunState::Faulted;
            after.fault = faultMessage(exec, s.next(), after);
        }
        m_convAtStep.push_back(convValues());
        m_history.push_back(event(exec, before, after, released));
        m_writtenAfterStep.push_back(s.written().size());
        m_states.push_back(std::move(after));
    }

    // The recurrent-state rows the last step changed, with what they held before; m_latest catches up. Only
    // the rows the engine logged as written can differ.
    std::vector<RowChange> recordStateChanges() {
        const circuit::Geometry& g = m_model.machine().circuit.geometry();
        size_t cols = size_t(g.linearValueHeadDim), rows = size_t(g.linearKeyHeadDim);
        std::vector<SparseModel::StateRow> written = m_stepper->takeRowsWritten();
        auto order = [](const auto& a, const auto& b) { return std::pair(a.layer, a.row) < std::pair(b.layer, b.row); };
        std::sort(written.begin(), written.end(), order);
        std::vector<RowChange> changes;
        const auto& now = m_stepper->recurrent();
        for (size_t i = 0; i < written.size(); ++i) {
            if (i > 0 && !order(written[i - 1], written[i])) continue;  // logged again
            size_t l = size_t(written[i].layer), row = size_t(written[i].row), at = row * cols;
            const float* a = m_latest[l].data() + at;
            const float* b = now[l].data() + at;
            if (std::equal(a, a + cols, b)) continue;
            changes.push_back({int(l), int(row / rows), int(row % rows), std::vector<float>(a, a + cols)});
            std::copy(b, b + cols, m_latest[l].begin() + long(at));
        }
        return changes;
    }

    // The convolutions' state now, at the places that can hold anything but 0 (m_convUsed's order).
    std::vector<float> convValues() const {
        std::vector<float> out;
        const auto& conv = m_stepper->state().conv;
        for (size_t l = 0; l < m_convUsed.size(); ++l)
            for (size_t place : m_convUsed[l]) out.push_back(conv[l][place]);
        return out;
    }

    // The step as the interpreter reports one: what the EXEC record names, and what changed in the state.
    StepEvent event(const gpu::Token& exec, const MachineState& before, const MachineState& after,
                    bool released) const {
        StepEvent e;
        e.step = int(m_history.size());
        e.warp = exec.warp;
        e.cta = exec.warp / before.warpsPerBlock;
        e.block = exec.block;
        e.maskBefore = uint8_t(exec.mask);
        e.barrierReleased = released;
        if (after.run == RunState::Faulted && before.run != RunState::Faulted) e.fault = after.fault;
        const gpu::Token& next = m_stepper->next();
        e.maskAfter = next.kind == gpu::Kind::Exec && next.warp == exec.warp ? uint8_t(next.mask) : 0;
        for (int l = 0; l < before.lanesPerWarp; ++l) {
            int slot = exec.warp * before.lanesPerWarp + l;
            if (before.threads[size_t(slot)].status == LaneStatus::Live) e.liveBefore |= uint8_t(1 << l);
        }
        for (size_t t = 0; t < after.threads.size(); ++t) {
            const ThreadState &a = before.threads[t], &b = after.threads[t];
            for (int r = 0; r < 16; ++r)
                if (a.regs[size_t(r)] != b.regs[size_t(r)])
                    e.regWrites.push_back({int(t), r, a.regs[size_t(r)], b.regs[size_t(r)]});
            if (a.pc != b.pc || a.status != b.status) e.laneChanges.push_back({int(t), a.pc, b.pc, a.status, b.status});
        }
        int writer = exec.warp * before.lanesPerWarp;  // the warp's slot 0: the records do not name the lane
        for (size_t i = 0; i < after.global.size(); ++i)
            if (before.global[i] != after.global[i])
                e.memWrites.push_back({MemSpace::Global, 0, int(i), before.global[i], after.global[i], writer});
        for (size_t c = 0; c < after.shared.size(); ++c)
            for (size_t i = 0; i < after.shared[c].size(); ++i)
                if (before.shared[c][i] != after.shared[c][i])
                    e.memWrites.push_back(
                        {MemSpace::Shared, int(c), int(i), before.shared[c][i], after.shared[c][i], writer});
        return e;
    }

    const GpuModel& m_model;
    std::unique_ptr<GpuStepper> m_stepper;
    RomImage m_rom;
    std::vector<MachineState> m_states;                  // the decoded machine before any step and after each
    std::vector<std::vector<RowChange>> m_stateChanges;  // per step: the recurrent-state rows it changed
    std::vector<StateRows> m_latest;                     // the recurrent state after the last recorded step
    std::vector<std::vector<size_t>> m_convUsed;         // per layer: the conv state's places that can change
    std::vector<std::vector<float>> m_convAtStep;        // their values before any step and after each
    std::vector<StepEvent> m_history;
    std::vector<size_t> m_writtenAfterStep;
    int m_position = 0;
    MachineState m_empty;
    // The step being written token by token: how many tokens so far, its EXEC, whether a RELEASE came.
    int m_pending = 0;
    gpu::Token m_pendingExec;
    bool m_pendingReleased = false;
    // Shown mid-step (a token step): the model's tokens written at that point, and the machine decoded there.
    std::optional<size_t> m_partialAt;
    MachineState m_partial;
    mutable std::optional<std::pair<size_t, SparseModel::State>> m_replay;  // the last state replayed
};

}  // namespace

std::unique_ptr<Session> makeModelSession(const GpuModel& model) { return std::make_unique<ModelSession>(model); }

const GpuStepper* modelStepper(const Session& session) {
    auto* m = dynamic_cast<const ModelSession*>(&session);
    return m ? m->stepper() : nullptr;
}

}  // namespace qgpu
