// The debugger's model backend: stepped in lockstep with the reference session, the state decoded out of
// the model's recurrent state after every step (registers, lane pcs and statuses, global and shared
// memory) is the interpreter's; stepping back and breakpoints behave alike; the ROM decodes to the program.
#include "GpuTestSupport.h"

#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Encoding.h"
#include "qgpu/core/Session.h"
#include "qgpu/runtime/ModelSession.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

struct Loaded {
    Program program;
    LaunchSpec launch;
};

Loaded exampleProgram(const std::string& name) {
    LaunchSpec launch = parseLaunchSpec(example(name + ".json"), name + ".json");
    return {assemble(example(name + ".qasm"), name + ".qasm"), launch};
}

void expectSameState(const MachineState& model, const MachineState& ref, int step) {
    SCOPED_TRACE("after step " + std::to_string(step));
    ASSERT_EQ(model.threads.size(), ref.threads.size());
    for (size_t t = 0; t < ref.threads.size(); ++t) {
        const ThreadState &m = model.threads[t], &r = ref.threads[t];
        EXPECT_EQ(m.status, r.status) << "thread " << t;
        if (r.status == LaneStatus::Absent) continue;
        EXPECT_EQ(m.regs, r.regs) << "thread " << t;
        if (r.status != LaneStatus::Exited) {
            EXPECT_EQ(m.pc, r.pc) << "thread " << t;
        }
    }
    EXPECT_EQ(model.global, ref.global);
    EXPECT_EQ(model.shared, ref.shared);
    EXPECT_EQ(model.run, ref.run);
}

// Steps both sessions to the end, comparing after every step; returns the steps taken.
int stepInLockstep(Session& model, Session& ref) {
    expectSameState(model.snapshot(), ref.snapshot(), 0);
    int steps = 0;
    for (;;) {
        NextStep m = model.peek(), r = ref.peek();
        EXPECT_EQ(m.warp, r.warp);
        EXPECT_EQ(m.block, r.block);
        EXPECT_EQ(m.mask, r.mask);
        StopReason a = model.step(), b = ref.step();
        ++steps;
        EXPECT_EQ(a, b) << "step " << steps;
        expectSameState(model.snapshot(), ref.snapshot(), steps);
        if (a != StopReason::Step || b != StopReason::Step || ::testing::Test::HasFailure()) return steps;
    }
}

// The recurrent-state heads at the current step (put back from recorded history when behind) hold the
// decoded machine: warp 0's lane-0 registers in regs_a0, and global words 0..127 in global0.
void expectHeatmapsHoldTheState(const Session& s) {
    SCOPED_TRACE("heatmaps at step " + std::to_string(s.position()));
    StateLayout layout = s.stateLayout();
    ASSERT_EQ(layout.memories.size(), size_t(layout.layers * layout.heads));
    auto head = [&](const std::string& memory) {
        auto it = std::find(layout.memories.begin(), layout.memories.end(), memory);
        EXPECT_NE(it, layout.memories.end()) << memory;
        int index = int(it - layout.memories.begin());
        return s.stateHead(index / layout.heads, index % layout.heads);
    };
    const MachineState& m = s.snapshot();
    StateHead regs = head("regs_a0");
    ASSERT_EQ(regs.rowWords.size(), 128u);
    for (int r = 0; r < 16; ++r) EXPECT_EQ(regs.rowWords[size_t(r)], m.threads[0].regs[size_t(r)]) << "r" << r;
    EXPECT_EQ(regs.rowLabels[5], "warp 0, lane 0, r5");
    // The register file's copies for rc reads and for the lane's own datapath: lane 1's registers.
    for (const char* copy : {"regs_rc10", "regs_lane10"}) {
        StateHead lane1 = head(copy);
        ASSERT_EQ(lane1.rowWords.size(), 128u) << copy;
        for (int r = 0; r < 16; ++r)
            EXPECT_EQ(lane1.rowWords[size_t(r)], m.threads[1].regs[size_t(r)]) << copy << " r" << r;
        EXPECT_EQ(lane1.rowLabels[3], "warp 0, lane 1, r3") << copy;
    }
    StateHead global = head("global0");
    for (int a = 0; a < 128; ++a) EXPECT_EQ(global.rowWords[size_t(a)], m.global[size_t(a)]) << "word " << a;
    EXPECT_EQ(global.rowLabels[7], "global word 7");
}

}  // namespace

// One test: each test process builds the model (about 12 s).
TEST(ModelSession, EveryStepDecodesToTheInterpretersStateAndStepsBackAlike) {
    const GpuModel& model = gpuModel(Engine::Sparse);
    // Divergence and loops; barriers, shared memory and an early-exiting warp over two blocks; atomics.
    for (const std::string name : {"branches", "reverse", "histogram"}) {
        SCOPED_TRACE(name);
        Loaded p = exampleProgram(name);
        auto onModel = makeModelSession(model);
        auto onInterpreter = makeReferenceSession();
        onModel->load(p.program, p.launch);
        onInterpreter->load(p.program, p.launch);
        EXPECT_EQ(onModel->backendName(), "model");
        int steps = stepInLockstep(*onModel, *onInterpreter);
        EXPECT_EQ(onModel->snapshot().run, RunState::Finished);
        EXPECT_EQ(int(onModel->history().size()), steps);
        for (const StepEvent& e : onModel->history()) {
            const StepEvent& r = onInterpreter->history()[size_t(e.step)];
            EXPECT_EQ(e.warp, r.warp);
            EXPECT_EQ(e.block, r.block);
            EXPECT_EQ(e.maskBefore, r.maskBefore);
            EXPECT_EQ(e.liveBefore, r.liveBefore) << "step " << e.step;
        }
        // The token stream: what the model wrote is the interpreter's stream; each step ends where it says.
        TokenStream ts = onModel->tokens();
        gpu::ReferenceLaunch ref = gpu::referenceLaunch(linkLaunch(p.program, p.launch).program, p.launch);
        ASSERT_EQ(ts.written.size(), ref.stream.size());
        for (size_t i = 0; i < ts.written.size(); ++i) EXPECT_EQ(ts.written[i], ref.stream[i].text()) << i;
        EXPECT_EQ(ts.writtenAfterStep.size(), size_t(steps));
        EXPECT_EQ(ts.written.back(), "END");
        EXPECT_GT(ts.fed.size(), 0u);
        // Back to the middle from recorded history, then forward again by replay.
        for (int i = 0; i < steps / 2; ++i) {
            onModel->stepBack();
            onInterpreter->stepBack();
        }
        expectSameState(onModel->snapshot(), onInterpreter->snapshot(), onModel->position());
        expectHeatmapsHoldTheState(*onModel);
        onModel->run();
        expectHeatmapsHoldTheState(*onModel);
        EXPECT_EQ(onModel->position(), steps);
        if (::testing::Test::HasFailure()) return;
    }

    // A breakpoint at block 1 stops both backends at the same step; run back returns to the start.
    Loaded loop = exampleProgram("loop_sum");
    auto onModel = makeModelSession(model);
    auto onInterpreter = makeReferenceSession();
    onModel->load(loop.program, loop.launch);
    onInterpreter->load(loop.program, loop.launch);
    onModel->breakpoints = onInterpreter->breakpoints = {Breakpoint{1, -1}};
    EXPECT_EQ(onModel->run(), StopReason::Breakpoint);
    EXPECT_EQ(onInterpreter->run(), StopReason::Breakpoint);
    EXPECT_EQ(onModel->position(), onInterpreter->position());
    EXPECT_EQ(onModel->peek().block, 1);
    EXPECT_EQ(onModel->runBack(), StopReason::AtStart);

    // The ROM decoded out of the state is the program's encoding (terminators carry the writes mask).
    const GpuStepper* stepper = modelStepper(*onModel);
    ASSERT_NE(stepper, nullptr);
    auto rom = stepper->decodeRom();
    Program linked = linkLaunch(loop.program, loop.launch).program;
    for (size_t b = 0; b < linked.blocks.size(); ++b) {
        std::vector<uint64_t> words = encodeBlock(linked.blocks[b], 4);
        for (size_t s = 0; s < 4; ++s) EXPECT_EQ(rom[b][s], words[s]) << "block " << b << " slot " << s;
        EXPECT_EQ(rom[b][4] & ~(uint64_t(15) << gpu::kWritesMaskShift), words[4]) << "block " << b;
    }
    EXPECT_EQ(modelStepper(*onInterpreter), nullptr);

    // The backend diff: the model against the interpreter agrees to the end; against the interpreter on
    // other inputs it stops at the first differing machine and names the word.
    Loaded dot = exampleProgram("dot_product");
    onModel->load(dot.program, dot.launch);
    onInterpreter->load(dot.program, dot.launch);
    Divergence same = compareSessions(*onModel, *onInterpreter);
    EXPECT_EQ(same.step, -1);
    EXPECT_GT(same.stepsCompared, 1);
    LaunchSpec other = dot.launch;
    other.args[1].values[2] = 7;  // b[2] = 7, not 6: global word 5
    onInterpreter->load(dot.program, other);
    Divergence d = compareSessions(*onModel, *onInterpreter);
    EXPECT_EQ(d.step, 0);
    ASSERT_FALSE(d.differences.empty());
    EXPECT_EQ(d.differences[0], "global[6]: 6 vs 7");
}

// Token by token through every step of a launch: mid-step, each register holds its value from before the
// step or, once its value's last byte is written, from after it (never a torn word); each step ends on the
// token where step() ends it, with the same machine; stepping back mid-step shows the step's start.
TEST(ModelSession, StepTokenShowsEachValueAsItsLastByteIsWritten) {
    const GpuModel& model = gpuModel(Engine::Sparse);
    Loaded p = exampleProgram("branches");
    auto byToken = makeModelSession(model), byStep = makeModelSession(model);
    byToken->load(p.program, p.launch);
    byStep->load(p.program, p.launch);
    int midSteps = 0;
    for (int step = 1; byStep->snapshot().run == RunState::Running; ++step) {
        SCOPED_TRACE("step " + std::to_string(step));
        MachineState before = byStep->snapshot();
        byStep->step();
        const MachineState& after = byStep->snapshot();
        while (byToken->position() < step) {
            size_t shown = byToken->tokens().writtenNow;
            byToken->stepToken();
            const MachineState& now = byToken->snapshot();
            ASSERT_EQ(byToken->tokens().writtenNow, shown + 1);
            if (byToken->position() == step) break;
            ++midSteps;
            for (size_t t = 0; t < now.threads.size(); ++t)
                for (size_t r = 0; r < 16; ++r) {
                    uint32_t v = now.threads[t].regs[r];
                    ASSERT_TRUE(v == before.threads[t].regs[r] || v == after.threads[t].regs[r])
                        << "thread " << t << " r" << r;
                }
        }
        EXPECT_EQ(byToken->tokens().writtenNow, byStep->tokens().writtenAfterStep[size_t(step - 1)]);
        expectSameState(byToken->snapshot(), after, step);
        if (step == 1) {  // back from the middle of step 2, and on again
            byToken->stepToken();
            byToken->stepToken();
            EXPECT_EQ(byToken->stepBack(), StopReason::Step);
            EXPECT_EQ(byToken->position(), 1);
            expectSameState(byToken->snapshot(), after, 1);
        }
    }
    EXPECT_GT(midSteps, 10);
    EXPECT_EQ(byToken->snapshot().run, RunState::Finished);
}

// Token steps through recorded history, forwards after Reset and backwards, show the same machines, token for
// token, as the token steps that wrote it.
TEST(ModelSession, TokenStepsWalkRecordedHistoryBothWaysThroughTheSameMachines) {
    const GpuModel& model = gpuModel(Engine::Sparse);
    Loaded p = exampleProgram("branches");
    auto s = makeModelSession(model);
    s->load(p.program, p.launch);
    struct Shown {
        size_t written;
        int position;
        MachineState machine;
    };
    std::vector<Shown> live{{0, 0, s->snapshot()}};
    while (s->snapshot().run == RunState::Running) {
        s->stepToken();
        live.push_back({s->tokens().writtenNow, s->position(), s->snapshot()});
    }
    ASSERT_GT(live.size(), size_t(s->position() + 10));  // steps of several tokens
    auto expectShown = [&](const Shown& want) {
        SCOPED_TRACE("token " + std::to_string(want.written));
        ASSERT_EQ(s->tokens().writtenNow, want.written);
        ASSERT_EQ(s->position(), want.position);
        expectSameState(s->snapshot(), want.machine, want.position);
    };
    s->reset();
    for (size_t i = 1; i < live.size(); ++i) {
        s->stepToken();
        expectShown(live[i]);
        if (::testing::Test::HasFailure()) return;
    }
    for (size_t i = live.size() - 1; i-- > 0;) {
        StopReason r = s->stepBackToken();
        expectShown(live[i]);
        EXPECT_EQ(r, i == 0 ? StopReason::AtStart : StopReason::Step);
        if (::testing::Test::HasFailure()) return;
    }
    // The stepper's replay from the very start (every fed token again) reaches the same machines.
    const GpuStepper* stepper = modelStepper(*s);
    ASSERT_TRUE(stepper);
    for (size_t i : {size_t(1), live.size() / 2, live.size() - 2})
        expectSameState(stepper->decode(stepper->replayed(live[i].written)), live[i].machine, live[i].position);
}

// The trace of the token going in names the state rows it writes: the rows that change when it goes in are
// among them; and it names the token the model writes after it.
TEST(ModelSession, TheTokenTraceNamesTheRowsTheTokenWrites) {
    const GpuModel& model = gpuModel(Engine::Sparse);
    Loaded p = exampleProgram("branches");
    auto s = makeModelSession(model);
    s->load(p.program, p.launch);
    for (int i = 0; i < 5; ++i) s->step();
    StateLayout layout = s->stateLayout();
    int changedRows = 0;
    for (int t = 0; t < 6; ++t) {
        size_t at = s->tokens().writtenNow;
        SCOPED_TRACE("token " + std::to_string(at));
        TokenTrace trace = s->tokenTrace();
        ASSERT_EQ(trace.layers.size(), size_t(layout.layers));
        EXPECT_EQ(trace.writtenBefore, at);
        ASSERT_EQ(trace.layers[0].afterLayer.size(), trace.layers[0].afterMixer.size());
        std::vector<StateHead> before;
        for (int l = 0; l < layout.layers; ++l)
            for (int h = 0; h < layout.heads; ++h) before.push_back(s->stateHead(l, h));
        s->stepToken();
        TokenStream stream = s->tokens();
        ASSERT_GT(stream.written.size(), at);
        EXPECT_EQ(trace.token, stream.written[at]);
        // The token after it: written already, or the one the model writes next.
        TokenStream further = stream.written.size() > at + 1 ? stream : (s->stepToken(), s->tokens());
        ASSERT_GT(further.written.size(), at + 1);
        EXPECT_EQ(trace.next, further.written[at + 1]);
        if (further.writtenNow != stream.writtenNow) s->stepBackToken();
        for (int l = 0; l < layout.layers; ++l)
            for (int h = 0; h < layout.heads; ++h) {
                StateHead after = s->stateHead(l, h);
                const StateHead& was = before[size_t(l * layout.heads + h)];
                const std::vector<int>& written = trace.layers[size_t(l)].rowsWritten[size_t(h)];
                for (int r = 0; r < after.rows; ++r) {
                    auto row = [&](const StateHead& x) { return x.values.begin() + long(r * x.cols); };
                    if (std::equal(row(was), row(was) + was.cols, row(after))) continue;
                    ++changedRows;
                    EXPECT_TRUE(std::binary_search(written.begin(), written.end(), r))
                        << "layer " << l << " head " << h << " (" << after.memory << ") row " << r;
                }
            }
    }
    EXPECT_GT(changedRows, 0);
}

// Every field of the layout decodes to clean bits where its value is final, token after token; the token's
// own input word is the one the stream names.
TEST(ModelSession, TheTraceDecodesThroughTheLayoutToCleanBits) {
    const GpuModel& model = gpuModel(Engine::Sparse);
    Loaded p = exampleProgram("branches");
    auto s = makeModelSession(model);
    s->load(p.program, p.launch);
    std::vector<ResidualField> layout = s->residualFields();
    ASSERT_GT(layout.size(), 1000u);
    StateLayout heads = s->stateLayout();
    int compared = 0;
    for (int t = 0; t < 40; ++t) {
        SCOPED_TRACE("token " + std::to_string(s->tokens().writtenNow));
        TokenTrace trace = s->tokenTrace();
        std::vector<LayerField> fields = decodeFields(layout, trace);
        ASSERT_GT(fields.size(), 100u);
        for (const LayerField& f : fields) EXPECT_TRUE(f.clean) << f.name << " (born " << f.born << "): " << f.value;
        if (::testing::Test::HasFailure()) return;
        s->stepToken();
        // A memory read (its read bits, named after the memory without its bank) is the row the query
        // read, as the state holds it once the token has gone in (a mixer writes before it reads).
        for (int l = 0; l < heads.layers; ++l)
            for (int h = 0; h < heads.heads; ++h) {
                const std::vector<int>& rows = trace.layers[size_t(l)].rowsRead[size_t(h)];
                const std::string& memory = heads.memories[size_t(l * heads.heads + h)];
                if (rows.size() != 1 || memory.empty()) continue;
                std::string base = memory.substr(0, memory.find_last_not_of("0123456789") + 1);
                auto read = std::find_if(fields.begin(), fields.end(), [&](const LayerField& f) {
                    return f.name == base && f.born == l && f.dims.size() == 32;
                });
                if (read == fields.end()) continue;
                uint32_t word = 0;
                for (size_t i = 0; i < read->raw.size(); ++i)
                    if (read->raw[i] == 62) word |= uint32_t(1) << read->index[i];
                StateHead after = s->stateHead(l, h);
                EXPECT_EQ(word, after.rowWords[size_t(rows[0])]) << memory << " row " << rows[0];
                ++compared;
            }
    }
    EXPECT_GT(compared, 20);
}

TEST(ModelSession, APartialBarrierFaultsAtTheSameStepWithTheSameMessage) {
    Program p = compileKernel(
                    "__global__ void k(const int* a, int* out) {\n  __shared__ int s[8];\n  int t = threadIdx.x;\n"
                    "  s[t] = a[t];\n  if (t < 2)\n    __syncthreads();\n  out[t] = s[7 - t];\n}\n",
                    "k.cu", MachineSpec::standard())
                    .kernel.program;
    LaunchSpec launch = parseLaunchSpec(
        R"({"grid": 1, "block": 8, "args": [{"name": "a", "array": [1, 2, 3, 4, 5, 6, 7, 8]}, {"name": "out", "zeros": 8}]})");
    auto onModel = makeModelSession(gpuModel(Engine::Sparse));
    auto onInterpreter = makeReferenceSession();
    onModel->load(p, launch);
    onInterpreter->load(p, launch);
    int steps = stepInLockstep(*onModel, *onInterpreter);
    EXPECT_EQ(onModel->snapshot().run, RunState::Faulted);
    EXPECT_EQ(onModel->snapshot().fault, onInterpreter->snapshot().fault);
    ASSERT_EQ(int(onModel->history().size()), steps);
    EXPECT_EQ(onModel->history().back().fault, onInterpreter->history().back().fault);
    EXPECT_EQ(onModel->step(), StopReason::Faulted);
    EXPECT_EQ(onModel->stepBack(), onInterpreter->stepBack());
    expectSameState(onModel->snapshot(), onInterpreter->snapshot(), steps - 1);
}

// Behind in recorded history, every head of the recurrent state is the state the model had there, bit for
// bit: the rows the engine logged as written are all the rows that changed. The layers do with the step's
// first token what they do after a replay from the very start (the convolutions' state at the step's start
// is recorded too), and a token into the step shows the machine that replay reaches.
TEST(ModelSession, RecordedHistoryPutsBackEveryChangedRowOfTheState) {
    const GpuModel& model = gpuModel(Engine::Sparse);
    Loaded p = exampleProgram("reverse");  // shared memory, barriers and stores: every kind of memory row
    auto s = makeModelSession(model);
    s->load(p.program, p.launch);
    s->run();
    const GpuStepper* stepper = modelStepper(*s);
    ASSERT_TRUE(stepper);
    StateLayout layout = s->stateLayout();
    int steps = s->position();
    for (int at : {steps - 1, steps / 2, 1}) {
        while (s->position() > at) s->stepBack();
        SCOPED_TRACE("at step " + std::to_string(at));
        SparseModel::State then = stepper->replayed(s->tokens().writtenAfterStep[size_t(at - 1)]);
        for (int l = 0; l < layout.layers; ++l)
            for (int h = 0; h < layout.heads; ++h) {
                if (layout.memories[size_t(l * layout.heads + h)].empty()) continue;
                StateHead shown = s->stateHead(l, h);
                size_t size = shown.values.size();
                ASSERT_GT(size, 0u);
                auto first = then.recurrent[size_t(l)].begin() + long(size_t(h) * size);
                ASSERT_TRUE(std::equal(shown.values.begin(), shown.values.end(), first))
                    << "layer " << l << " head " << h << " (" << shown.memory << ")";
            }
        // What the layers do with the step's first token, from the state put back (the convolutions' too).
        TokenTrace trace = s->tokenTrace(), replayed = stepper->trace(s->tokens().writtenNow, then);
        ASSERT_EQ(trace.layers.size(), replayed.layers.size());
        for (size_t l = 0; l < trace.layers.size(); ++l) {
            EXPECT_EQ(trace.layers[l].afterMixer, replayed.layers[l].afterMixer) << "layer " << l;
            EXPECT_EQ(trace.layers[l].afterLayer, replayed.layers[l].afterLayer) << "layer " << l;
        }
        s->stepToken();  // into the step, then back out of it
        MachineState mid = s->snapshot();
        size_t written = s->tokens().writtenNow;
        expectSameState(stepper->decode(stepper->replayed(written)), mid, at);
        s->stepBackToken();
    }
}
