// The debugger's Session over the reference interpreter: stepping both ways, breakpoints, reset, replay.
#include <gtest/gtest.h>

#include <algorithm>

#include "TestUtil.h"
#include "qgpu/core/Session.h"

using namespace qgpu;
using namespace qgpu::test;

namespace {

const char* const kKernel = kSessionKernel;
const char* const kLaunch = kSessionLaunch;

std::unique_ptr<Session> loadedSession() {
    auto s = makeReferenceSession();
    s->load(assemble(kKernel), parseLaunchSpec(kLaunch));
    return s;
}

// Steps to the end, returning the snapshot before the first step and after every step.
std::vector<MachineState> stepToEnd(Session& s) {
    std::vector<MachineState> snaps{s.snapshot()};
    for (int n = 0; n < 1000; ++n) {
        StopReason r = s.step();
        snaps.push_back(s.snapshot());
        if (r != StopReason::Step) {
            EXPECT_EQ(r, StopReason::Finished);
            return snaps;
        }
    }
    ADD_FAILURE() << "the kernel did not finish";
    return snaps;
}

std::vector<int32_t> out(const Session& s) {
    std::vector<int32_t> v;
    for (int i = 0; i < 8; ++i) v.push_back(int32_t(s.snapshot().global[size_t(10 + i)]));  // after null, in, ctr
    return v;
}

}  // namespace

TEST(Session, NotLoaded) {
    auto s = makeReferenceSession();
    EXPECT_EQ(s->backendName(), "reference");
    EXPECT_FALSE(s->loaded());
    EXPECT_EQ(s->peek().warp, -1);
    EXPECT_EQ(s->position(), 0);
    EXPECT_TRUE(s->history().empty());
    std::string msg = diagnosticOf([&] { s->step(); });
    EXPECT_NE(msg.find("no program is loaded"), std::string::npos) << msg;
    diagnosticOf([&] { s->stepBack(); });
    diagnosticOf([&] { s->reset(); });
}

TEST(Session, LoadRejectsBadInput) {
    auto s = makeReferenceSession();
    std::string msg =
        diagnosticOf([&] { s->load(assemble("a:\n  mov r1, $x\n  exit\n"), parseLaunchSpec(R"({"block": 1})")); });
    EXPECT_NE(msg.find("$x"), std::string::npos) << msg;
    msg = diagnosticOf([&] { s->load(assemble("a:\n  exit\n"), parseLaunchSpec(R"({"block": 33})")); });
    EXPECT_NE(msg.find("33 threads"), std::string::npos) << msg;
    EXPECT_FALSE(s->loaded());
}

TEST(Session, RunsToTheSameResultAsTheInterpreter) {
    auto s = loadedSession();
    EXPECT_TRUE(s->loaded());
    EXPECT_EQ(s->run(), StopReason::Finished);
    Kernel k = run(kKernel, kLaunch);
    EXPECT_TRUE(sameState(s->snapshot(), k.state()));
    EXPECT_EQ(s->position(), int(s->history().size()));
    EXPECT_EQ(s->position(), k.state().steps);
    // in = 5..12; thread t reads shared[t ^ 1] and swaps it with its bfly partner t ^ 1: gets in[t]
    EXPECT_EQ(out(*s), (std::vector<int32_t>{5, 6, 7, 8, 9, 10, 11, 12}));
    // ctr = sum over threads of 1 + 2 + ... + max(t, 1)
    int32_t ctr = 0;
    for (int t = 0; t < 8; ++t)
        for (int i = 1; i <= std::max(t, 1); ++i) ctr += i;
    EXPECT_EQ(int32_t(s->snapshot().global[9]), ctr);
    EXPECT_EQ(s->step(), StopReason::Finished) << "stepping past the end stays finished";
    EXPECT_EQ(s->position(), int(s->history().size()));
}

TEST(Session, StepBackRestoresEverySnapshotExactly) {
    auto s = loadedSession();
    std::vector<MachineState> snaps = stepToEnd(*s);
    ASSERT_GT(snaps.size(), 10u);
    int n = int(snaps.size()) - 1;
    EXPECT_EQ(s->position(), n);
    for (int pos = n - 1; pos >= 0; --pos) {
        StopReason r = s->stepBack();
        EXPECT_EQ(r, pos == 0 ? StopReason::AtStart : StopReason::Step);
        EXPECT_EQ(s->position(), pos);
        EXPECT_TRUE(sameState(s->snapshot(), snaps[size_t(pos)])) << "after stepping back to " << pos;
    }
    EXPECT_EQ(s->stepBack(), StopReason::AtStart);
    EXPECT_EQ(s->position(), 0);
}

TEST(Session, SteppingForwardAgainReplaysHistory) {
    auto s = loadedSession();
    std::vector<MachineState> snaps = stepToEnd(*s);
    std::vector<StepEvent> history = s->history();
    EXPECT_EQ(s->runBack(), StopReason::AtStart);
    for (size_t pos = 1; pos < snaps.size(); ++pos) {
        s->step();
        EXPECT_TRUE(sameState(s->snapshot(), snaps[pos])) << "replayed step " << pos;
    }
    EXPECT_EQ(s->history().size(), history.size()) << "replay must not record new events";
    // partway back and forward again
    for (int i = 0; i < 5; ++i) s->stepBack();
    EXPECT_EQ(s->run(), StopReason::Finished);
    EXPECT_TRUE(sameState(s->snapshot(), snaps.back()));
}

TEST(Session, RunStopsBeforeABreakpointBlock) {
    auto s = loadedSession();
    s->breakpoints.insert({2, -1});
    EXPECT_EQ(s->run(), StopReason::Breakpoint);
    EXPECT_EQ(s->peek().block, 2);
    EXPECT_EQ(s->peek().warp, 0);
    for (const auto& ev : s->history()) EXPECT_NE(ev.block, 2) << "block 2 ran before the breakpoint";
    int first = s->position();
    // continuing executes the breakpoint block and stops at the next hit (warp 1)
    EXPECT_EQ(s->run(), StopReason::Breakpoint);
    EXPECT_EQ(s->peek().block, 2);
    EXPECT_EQ(s->peek().warp, 1);
    EXPECT_GT(s->position(), first);
    EXPECT_EQ(s->history()[size_t(first)].block, 2);
    EXPECT_EQ(s->run(), StopReason::Finished);
}

TEST(Session, WarpSpecificBreakpoint) {
    auto s = loadedSession();
    s->breakpoints.insert({2, 1});
    EXPECT_EQ(s->run(), StopReason::Breakpoint);
    EXPECT_EQ(s->peek().block, 2);
    EXPECT_EQ(s->peek().warp, 1);
    int fins = 0;
    for (const auto& ev : s->history()) fins += ev.block == 2;
    EXPECT_EQ(fins, 1) << "warp 0's visit to block 2 does not stop";
    EXPECT_EQ(s->run(), StopReason::Finished);
}

TEST(Session, RunBackStopsAtBreakpoints) {
    auto s = loadedSession();
    EXPECT_EQ(s->run(), StopReason::Finished);
    const std::vector<StepEvent>& h = s->history();
    std::vector<int> finSteps;
    for (size_t i = 0; i < h.size(); ++i)
        if (h[i].block == 2) finSteps.push_back(int(i));
    ASSERT_EQ(finSteps.size(), 2u);
    s->breakpoints.insert({2, -1});
    EXPECT_EQ(s->runBack(), StopReason::Breakpoint);
    EXPECT_EQ(s->position(), finSteps[1]);
    EXPECT_EQ(s->peek().block, 2);
    EXPECT_EQ(s->peek().warp, 1);
    EXPECT_EQ(s->runBack(), StopReason::Breakpoint);
    EXPECT_EQ(s->position(), finSteps[0]);
    EXPECT_EQ(s->peek().warp, 0);
    EXPECT_EQ(s->runBack(), StopReason::AtStart);
    EXPECT_EQ(s->position(), 0);
}

TEST(Session, RunBackToStartRestoresTheInitialState) {
    auto s = loadedSession();
    MachineState initial = s->snapshot();
    s->run();
    EXPECT_EQ(s->runBack(), StopReason::AtStart);
    EXPECT_TRUE(sameState(s->snapshot(), initial));
}

TEST(Session, StepLimit) {
    auto s = loadedSession();
    EXPECT_EQ(s->run(3), StopReason::StepLimit);
    EXPECT_EQ(s->position(), 3);
    EXPECT_EQ(s->snapshot().steps, 3);
}

TEST(Session, ResetKeepsHistoryForReplay) {
    auto s = loadedSession();
    MachineState initial = s->snapshot();
    std::vector<MachineState> snaps = stepToEnd(*s);
    size_t n = s->history().size();
    s->reset();
    EXPECT_EQ(s->position(), 0);
    EXPECT_TRUE(sameState(s->snapshot(), initial));
    EXPECT_EQ(s->history().size(), n);
    EXPECT_EQ(s->peek().block, 0);
    for (size_t pos = 1; pos <= 4; ++pos) {
        EXPECT_EQ(s->step(), StopReason::Step);
        EXPECT_TRUE(sameState(s->snapshot(), snaps[pos]));
    }
    EXPECT_EQ(s->run(), StopReason::Finished);
    EXPECT_TRUE(sameState(s->snapshot(), snaps.back()));
    EXPECT_EQ(s->history().size(), n);
}

TEST(Session, LoadingAgainStartsFresh) {
    auto s = loadedSession();
    s->run();
    s->load(assemble("a:\n  exit\n"), parseLaunchSpec(R"({"block": 2})"));
    EXPECT_EQ(s->position(), 0);
    EXPECT_TRUE(s->history().empty());
    EXPECT_EQ(s->run(), StopReason::Finished);
    EXPECT_EQ(s->history().size(), 1u);
}

TEST(Session, FaultStopsTheSessionAndCanBeSteppedBackFrom) {
    auto s = makeReferenceSession();
    s->load(assemble(R"(
entry:
    sreg r1, laneid
    setlt r2, r1, 2
    br r2, sync, other
sync:
    mov r3, 9
    bar after
other:
    exit
after:
    exit
)"),
            parseLaunchSpec(R"({"block": 4})"));
    EXPECT_EQ(s->run(), StopReason::Faulted);
    EXPECT_EQ(s->snapshot().run, RunState::Faulted);
    EXPECT_NE(s->snapshot().fault.find("divergent barrier"), std::string::npos);
    EXPECT_EQ(s->position(), 2);
    ASSERT_EQ(s->history().size(), 2u) << "the faulting step is recorded";
    EXPECT_FALSE(s->history().back().fault.empty());
    EXPECT_EQ(s->snapshot().threads[0].regs[3], 9u);
    EXPECT_EQ(s->step(), StopReason::Faulted);
    EXPECT_EQ(s->stepBack(), StopReason::Step);
    EXPECT_EQ(s->snapshot().run, RunState::Running);
    EXPECT_EQ(s->snapshot().threads[0].regs[3], 0u);
    EXPECT_EQ(s->step(), StopReason::Faulted);
    EXPECT_EQ(s->snapshot().threads[0].regs[3], 9u);
}

TEST(Session, InterpreterApplyUndoesAndRedoesEachEvent) {
    Kernel k = load(kKernel, kLaunch);
    while (!k.interp->done()) {
        MachineState before = k.state();
        StepEvent ev = k.step();
        MachineState after = k.state();
        k.interp->apply(ev, false);
        ASSERT_TRUE(sameState(k.state(), before)) << "undo of step " << ev.step;
        k.interp->apply(ev, true);
        ASSERT_TRUE(sameState(k.state(), after)) << "redo of step " << ev.step;
    }
    EXPECT_EQ(k.state().run, RunState::Finished);
}

TEST(SessionCompare, IdenticalBackendsAgreeToTheEnd) {
    auto a = loadedSession(), b = loadedSession();
    b->run();  // positions do not matter: the comparison starts both from the beginning
    Divergence d = compareSessions(*a, *b);
    EXPECT_EQ(d.step, -1);
    EXPECT_TRUE(d.differences.empty());
    EXPECT_GT(d.stepsCompared, 5);
    EXPECT_EQ(a->snapshot().run, RunState::Finished);
}

TEST(SessionCompare, StopsAtTheFirstStepThatDiffersAndNamesTheDifference) {
    // The same kernel with in[2] changed: the machines first differ after the step that loads it.
    auto a = loadedSession();
    auto b = makeReferenceSession();
    std::string launch = kLaunch;
    launch.replace(launch.find("5,6,7"), 5, "5,6,9");
    b->load(assemble(kKernel), parseLaunchSpec(launch));
    Divergence d = compareSessions(*a, *b);
    EXPECT_EQ(d.step, 0);  // the inputs already differ in memory
    ASSERT_FALSE(d.differences.empty());
    EXPECT_EQ(d.differences[0], "global[3]: 7 vs 9");
    EXPECT_EQ(a->position(), 0);

    // With equal memory but a different program, the first step's registers differ.
    auto c = makeReferenceSession();
    std::string kernel = kKernel;
    kernel.replace(kernel.find("ld.global r2"), 12, "ld.global r9");
    c->load(assemble(kernel), parseLaunchSpec(kLaunch));
    d = compareSessions(*a, *c);
    EXPECT_EQ(d.step, 1);
    EXPECT_EQ(a->position(), 1);
    EXPECT_EQ(c->position(), 1);
    EXPECT_NE(std::find(d.differences.begin(), d.differences.end(), "thread 0 r2: 5 vs 0"), d.differences.end())
        << d.differences[0];
}
