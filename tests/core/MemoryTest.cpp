// Global and shared memory, barriers, atomics, store ordering and address wrapping.
#include <gtest/gtest.h>

#include "TestUtil.h"

using namespace qgpu;
using namespace qgpu::test;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST(Memory, ArraysArePlacedConsecutivelyInArgumentOrder) {
    Kernel k = run(R"(
entry:
    exit
)",
                   R"({"block": 1, "args": [{"name":"a","array":[1,2,3]}, {"name":"s","scalar":77},
                                            {"name":"b","zeros":2}, {"name":"c","array":[-1]}]})");
    ASSERT_EQ(k.map.arrays.size(), 3u);
    EXPECT_EQ(k.map.find("a")->base, 1);  // word 0 is null
    EXPECT_EQ(k.map.find("b")->base, 4);
    EXPECT_EQ(k.map.find("c")->base, 6);
    EXPECT_EQ(k.map.find("s"), nullptr);
    EXPECT_EQ(k.map.usedWords, 7);
    std::vector<uint32_t> head(k.state().global.begin(), k.state().global.begin() + 8);
    EXPECT_EQ(head, (std::vector<uint32_t>{0, 1, 2, 3, 0, 0, 0xFFFFFFFF, 0}));
    EXPECT_EQ(k.state().global.size(), 1024u);
    EXPECT_EQ(k.state().shared.size(), 1u);
    EXPECT_EQ(k.state().shared[0].size(), 64u);
}

TEST(Memory, LoadsAndStoresWithOffsets) {
    Kernel k = run(R"(
entry:
    sreg r1, tid.x
    ld.global r2, [r1 + $in]
    add r3, r1, 1
    ld.global r4, [r3 + $in]     ; neighbour (in has 5 words)
    jmp store
store:
    add r5, r2, r4
    st.global [r1 + $out], r5
    st.global [r1 + 100], r2
    exit
)",
                   R"({"block": 4, "args": [{"name":"in","array":[10,20,30,40,50]}, {"name":"out","zeros":4}]})");
    EXPECT_EQ(k.array("out"), (std::vector<int64_t>{30, 50, 70, 90}));
    for (int i = 0; i < 4; ++i) EXPECT_EQ(k.state().global[size_t(100 + i)], uint32_t(10 * (i + 1)));
    // memWrites record before/after and the writing thread
    const StepEvent& ev = k.events[1];
    ASSERT_EQ(ev.memWrites.size(), 8u);
    EXPECT_EQ(ev.memWrites[0].space, MemSpace::Global);
    EXPECT_EQ(ev.memWrites[0].addr, 6);  // out follows null and in's 5 words
    EXPECT_EQ(ev.memWrites[0].before, 0u);
    EXPECT_EQ(ev.memWrites[0].after, 30u);
    EXPECT_EQ(ev.memWrites[0].thread, 0);
    EXPECT_EQ(ev.memWrites[3].thread, 3);
    EXPECT_TRUE(k.allWarnings().empty());
}

TEST(Memory, SharedMemoryIsPrivateToEachThreadBlock) {
    // Each thread block first reads its shared words (must be zero), then writes its own values.
    // Block 0 runs completely before block 1, so a shared shared-memory would leak block 0's values.
    Kernel k = run(R"(
.shared 4
entry:
    sreg r1, tid.x
    sreg r2, ctaid.x
    ld.shared r3, [r1]
    mul r4, r2, 4
    jmp write
write:
    add r4, r4, r1
    st.global [r4 + $seen], r3
    mul r5, r2, 100
    add r5, r5, r1
    jmp last
last:
    add r5, r5, 1
    st.shared [r1], r5
    exit
)",
                   R"({"grid": 2, "block": 4, "args": [{"name":"seen","array":[-1,-1,-1,-1,-1,-1,-1,-1]}]})");
    EXPECT_EQ(k.array("seen"), std::vector<int64_t>(8, 0));
    ASSERT_EQ(k.state().shared.size(), 2u);
    for (int t = 0; t < 4; ++t) {
        EXPECT_EQ(k.state().shared[0][size_t(t)], uint32_t(t + 1));
        EXPECT_EQ(k.state().shared[1][size_t(t)], uint32_t(100 + t + 1));
    }
    for (const auto& ev : k.events)
        for (const auto& w : ev.memWrites)
            if (w.space == MemSpace::Shared) {
                EXPECT_EQ(w.cta, ev.cta);
            }
}

TEST(Memory, BarrierAcrossTwoWarpsStagesThroughSharedMemory) {
    // Each of 8 threads writes shared[t] = 10 t, waits at the barrier, then reads its neighbour (t + 1) % 8.
    // Warp 0 runs first; without the barrier it would read warp 1's words before they are written.
    Kernel k = run(R"(
.shared 8
entry:                      ; 0
    sreg r1, tid.x
    mul r2, r1, 10
    st.shared [r1], r2
    bar read
read:                       ; 1
    add r3, r1, 1
    and r3, r3, 7
    ld.shared r4, [r3]
    jmp store
store:                      ; 2
    st.global [r1 + $out], r4
    exit
)",
                   R"({"block": 8, "args": [{"name":"out","zeros":8}]})");
    std::vector<int64_t> expected;
    for (int t = 0; t < 8; ++t) expected.push_back(((t + 1) % 8) * 10);
    EXPECT_EQ(k.array("out"), expected);

    ASSERT_GE(k.events.size(), 2u);
    const StepEvent& first = k.events[0];
    EXPECT_EQ(first.warp, 0);
    EXPECT_EQ(first.maskAfter, 0) << "warp 0 waits at the barrier";
    EXPECT_FALSE(first.barrierReleased);
    for (const auto& c : first.laneChanges) {
        EXPECT_EQ(c.statusAfter, LaneStatus::AtBarrier);
        EXPECT_EQ(c.pcAfter, 1);
    }
    const StepEvent& second = k.events[1];
    EXPECT_EQ(second.warp, 1);
    EXPECT_TRUE(second.barrierReleased);
    EXPECT_EQ(second.laneChanges.size(), 8u) << "both warps' lanes are released";
    for (const auto& c : second.laneChanges) EXPECT_EQ(c.statusAfter, LaneStatus::Live);
    EXPECT_EQ(k.events[2].warp, 0) << "after the release the lowest warp runs again";
    EXPECT_EQ(k.events[2].block, 1);
}

TEST(Memory, WaitingAtBarrierShowsInLaneStatus) {
    Kernel k = load(R"(
entry:
    bar next
next:
    exit
)",
                    R"({"block": 8})");
    k.step();
    for (int t = 0; t < 4; ++t) EXPECT_EQ(k.state().threads[size_t(t)].status, LaneStatus::AtBarrier);
    for (int t = 4; t < 8; ++t) EXPECT_EQ(k.state().threads[size_t(t)].status, LaneStatus::Live);
    EXPECT_EQ(k.interp->peek().warp, 1);
    k.step();
    for (int t = 0; t < 8; ++t) EXPECT_EQ(k.state().threads[size_t(t)].status, LaneStatus::Live);
    for (int t = 0; t < 8; ++t) EXPECT_EQ(k.state().threads[size_t(t)].pc, 1);
}

TEST(Memory, BarriersAreIndependentPerThreadBlock) {
    Kernel k = load(R"(
entry:
    bar next
next:
    exit
)",
                    R"({"grid": 2, "block": 4})");
    StepEvent a = k.step();
    EXPECT_EQ(a.warp, 0);
    EXPECT_TRUE(a.barrierReleased) << "a one-warp block releases its own barrier at once";
    EXPECT_EQ(a.maskAfter, 0b1111);
    for (int t = 4; t < 8; ++t) EXPECT_EQ(k.state().threads[size_t(t)].pc, 0);
}

TEST(Memory, DivergentBarrierFaultsAfterTheStepHasRun) {
    Kernel k = load(R"(
entry:                      ; 0
    sreg r1, laneid
    setlt r2, r1, 2
    br r2, sync, other
sync:                       ; 1: only lanes 0, 1
    add r3, r1, 5
    st.global [r1 + $out], r3
    bar after
other:                      ; 2
    exit
after:                      ; 3
    exit
)",
                    R"({"block": 4, "args": [{"name":"out","array":[7,7,7,7]}]})");
    k.step();
    MachineState before = k.state();
    StepEvent ev = k.step();
    EXPECT_EQ(k.state().run, RunState::Faulted);
    EXPECT_TRUE(contains(k.state().fault, "divergent barrier")) << k.state().fault;
    EXPECT_TRUE(contains(ev.fault, "divergent barrier")) << ev.fault;
    EXPECT_TRUE(k.interp->done());
    // The step ran: its stores and registers stay, the arrived lanes wait at the barrier, the others are
    // still live at the block they branched to; the model writes the same records, then FAULT.
    EXPECT_EQ(k.array("out"), (std::vector<int64_t>{5, 6, 7, 7}));
    EXPECT_EQ(k.reg(0, 3), 5u);
    EXPECT_EQ(k.state().lane(0, 0).status, LaneStatus::AtBarrier);
    EXPECT_EQ(k.state().lane(0, 2).status, LaneStatus::Live);
    EXPECT_EQ(ev.liveBefore & ~ev.maskBefore, 0b1100);
    EXPECT_TRUE(contains(ev.fault, "lanes {0,1} while lane 2 at block 2, lane 3 at block 2")) << ev.fault;
    // a faulted machine does not step further
    k.interp->step();
    EXPECT_EQ(k.state().steps, before.steps + 1);
    // undoing the step restores the state before it, redoing it the fault
    k.interp->apply(ev, false);
    EXPECT_TRUE(sameState(k.state(), before));
    k.interp->apply(ev, true);
    EXPECT_EQ(k.state().run, RunState::Faulted);

    Kernel again = load(R"(
entry:
    sreg r1, laneid
    setlt r2, r1, 2
    br r2, sync, other
sync:
    bar after
other:
    exit
after:
    exit
)",
                        R"({"block": 4})");
    std::string msg = diagnosticOf([&] { runToCompletion(*again.interp); });
    EXPECT_TRUE(contains(msg, "divergent barrier")) << msg;
}

TEST(Memory, ExitedLanesCountAsArrivedAtTheBarrier) {
    // Warp 0 waits at the barrier; in warp 1 lanes 2, 3 exit early and lanes 0, 1 reach the barrier.
    Kernel k = run(R"(
.shared 8
entry:                      ; 0
    sreg r1, tid.x
    setge r2, r1, 6
    st.shared [r1], r1
    br r2, leave, sync
leave:                      ; 1 (before `sync`, so the leaving lanes go first)
    exit
sync:                       ; 2
    add r5, r1, 100
    st.shared [r1], r5
    bar after
after:                      ; 3
    xor r3, r1, 1
    ld.shared r4, [r3]
    st.global [r1 + $out], r4
    exit
)",
                   R"({"block": 8, "args": [{"name":"out","zeros":8}]})");
    // threads 0..5 wrote 100 + t before the barrier and read their xor-1 partner; 6 and 7 exited (no store)
    std::vector<int64_t> expected = {101, 100, 103, 102, 105, 104, 0, 0};
    EXPECT_EQ(k.array("out"), expected);
    bool released = false;
    for (const auto& ev : k.events) released = released || ev.barrierReleased;
    EXPECT_TRUE(released);
}

TEST(Memory, LastThreadsExitingReleaseTheBarrier) {
    // Warp 1 never reaches the barrier: it exits. Its exit must release warp 0.
    Kernel k = run(R"(
entry:                      ; 0
    sreg r1, warpid
    br r1, leave, sync
leave:                      ; 1
    exit
sync:                       ; 2
    bar after
after:                      ; 3
    sreg r2, tid.x
    st.global [r2 + $out], r2
    exit
)",
                   R"({"block": 8, "args": [{"name":"out","array":[9,9,9,9,9,9,9,9]}]})");
    EXPECT_EQ(k.array("out"), (std::vector<int64_t>{0, 1, 2, 3, 9, 9, 9, 9}));
    // warp 0: entry, sync (waits); warp 1: entry, leave (releases); warp 0: after
    ASSERT_EQ(k.events.size(), 5u);
    EXPECT_EQ(k.events[1].block, 2);
    EXPECT_FALSE(k.events[1].barrierReleased);
    EXPECT_EQ(k.events[3].warp, 1);
    EXPECT_EQ(k.events[3].block, 1);
    EXPECT_TRUE(k.events[3].barrierReleased);
    EXPECT_EQ(k.events[4].warp, 0);
    EXPECT_EQ(k.events[4].block, 3);
}

TEST(Memory, PartialWarpAbsentLanesDoNotBlockTheBarrier) {
    Kernel k = run(R"(
.shared 8
entry:
    sreg r1, tid.x
    st.shared [r1], r1
    bar next
next:
    sub r2, r1, 5
    sub r2, r0, r2          ; 5 - t
    ld.shared r3, [r2]
    jmp store
store:
    st.global [r1 + $out], r3
    exit
)",
                   R"({"block": 6, "args": [{"name":"out","zeros":6}]})");
    EXPECT_EQ(k.array("out"), (std::vector<int64_t>{5, 4, 3, 2, 1, 0}));
}

TEST(Memory, GlobalAtomicsReturnOldValuesInLaneOrder) {
    // Every lane of two thread blocks adds (lane + 1) to one counter.
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    add r2, r1, 1
    atom.global r3, [r0 + $ctr], r2
    sreg r4, ctaid.x
    jmp store
store:
    shl r4, r4, 2
    add r4, r4, r1
    st.global [r4 + $old], r3
    exit
)",
                   R"({"grid": 2, "block": 4, "args": [{"name":"ctr","array":[1000]}, {"name":"old","zeros":8}]})");
    // warp 0 first, lanes ascending: 1000, 1001, 1003, 1006 -> 1010; then warp 1
    std::vector<int64_t> old;
    int32_t c = 1000;
    for (int w = 0; w < 2; ++w)
        for (int lane = 0; lane < 4; ++lane) old.push_back(c), c += lane + 1;
    EXPECT_EQ(k.array("old"), old);
    EXPECT_EQ(k.array("ctr"), std::vector<int64_t>{c});  // 1020
    const StepEvent& ev = k.events[0];
    ASSERT_EQ(ev.memWrites.size(), 4u);
    for (int lane = 0; lane < 4; ++lane) {
        EXPECT_EQ(ev.memWrites[size_t(lane)].thread, lane);
        EXPECT_EQ(ev.memWrites[size_t(lane)].before, uint32_t(old[size_t(lane)]));
    }
}

TEST(Memory, AtomicsOnDifferentAddressesAndWrapAround) {
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    and r2, r1, 1
    mov r3, -1
    atom.global r4, [r2 + $ctr], r3
    exit
)",
                   R"({"block": 4, "args": [{"name":"ctr","array":[0, -2147483648]}]})");
    EXPECT_EQ(k.array("ctr"), (std::vector<int64_t>{-2, 2147483646}));
    EXPECT_EQ(k.reg(0, 4), 0u);
    EXPECT_EQ(k.reg(1, 4), 0x80000000u);
    EXPECT_EQ(k.reg(2, 4), 0xFFFFFFFFu);
    EXPECT_EQ(k.reg(3, 4), 0x7FFFFFFFu);
}

TEST(Memory, SharedAtomicsArePerThreadBlock) {
    Kernel k = run(R"(
.shared 1
entry:
    sreg r1, tid.x
    atom.shared r2, [r0], r1      ; old = sum of lower tids in this block
    sreg r3, ctaid.x
    mul r3, r3, 8
    jmp store
store:
    add r3, r3, r1
    st.global [r3 + $old], r2
    bar total
total:
    ld.shared r4, [r0]
    sreg r5, ctaid.x
    seteq r6, r1, 0
    br r6, write, done
write:
    st.global [r5 + $sum], r4
    exit
done:
    exit
)",
                   R"({"grid": 2, "block": 8, "args": [{"name":"old","zeros":16}, {"name":"sum","zeros":2}]})");
    std::vector<int64_t> old;
    for (int b = 0; b < 2; ++b) {
        int32_t acc = 0;
        for (int t = 0; t < 8; ++t) old.push_back(acc), acc += t;
    }
    EXPECT_EQ(k.array("old"), old);
    EXPECT_EQ(k.array("sum"), (std::vector<int64_t>{28, 28}));
}

TEST(Memory, WithinOneStoreTheHighestLaneWins) {
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    add r2, r1, 50
    st.global [r0 + $x], r2
    jmp part
part:
    setne r3, r1, 3
    br r3, some, done
some:                       ; lanes 0..2
    st.global [r0 + $y], r2
    st.shared [r0], r2
    ld.shared r4, [r0]
    jmp done
done:
    exit
)",
                   R"({"block": 4, "args": [{"name":"x","zeros":1}, {"name":"y","zeros":1}]})");
    EXPECT_EQ(k.array("x"), std::vector<int64_t>{53});
    EXPECT_EQ(k.array("y"), std::vector<int64_t>{52});
    for (int lane = 0; lane < 3; ++lane) EXPECT_EQ(k.reg(lane, 4), 52u);
    const StepEvent& ev = k.events[0];
    ASSERT_EQ(ev.memWrites.size(), 4u);
    for (int lane = 0; lane < 4; ++lane) EXPECT_EQ(ev.memWrites[size_t(lane)].thread, lane);
    EXPECT_EQ(ev.memWrites[1].before, 50u) << "each write records the value it replaced";
}

TEST(Memory, LoadSeesStoresOfEarlierInstructionsInTheSameBlock) {
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    xor r2, r1, 1
    st.global [r1 + $buf], r1
    ld.global r3, [r2 + $buf]
    exit
)",
                   R"({"block": 4, "args": [{"name":"buf","zeros":4}]})");
    for (int lane = 0; lane < 4; ++lane) EXPECT_EQ(k.reg(lane, 3), uint32_t(lane ^ 1));
}

TEST(Memory, OutOfRangeGlobalAddressesWrapWithAWarning) {
    Kernel k = run(R"(
entry:
    mov r1, 1030            ; 1024 + 6
    ld.global r2, [r1]
    mov r3, -1
    st.global [r3], r2      ; -> 1023
    jmp more
more:
    st.global [r0 + 2048], r2   ; -> 0
    ld.global r4, [r3 - 1]      ; 0xFFFFFFFE -> 1022
    exit
)",
                   R"({"block": 1, "args": [{"name":"a","array":[0,0,0,0,0,42]}]})");
    EXPECT_EQ(k.reg(0, 2), 42u);
    EXPECT_EQ(k.state().global[1023], 42u);
    EXPECT_EQ(k.state().global[0], 42u);
    EXPECT_EQ(k.reg(0, 4), 0u);
    ASSERT_EQ(k.events[0].warnings.size(), 2u);
    EXPECT_TRUE(contains(k.events[0].warnings[0].describe(), "1030")) << k.events[0].warnings[0].describe();
    EXPECT_TRUE(contains(k.events[0].warnings[0].describe(), "wrapped to 6")) << k.events[0].warnings[0].describe();
    EXPECT_TRUE(contains(k.events[0].warnings[1].describe(), "wrapped to 1023")) << k.events[0].warnings[1].describe();
    ASSERT_EQ(k.events[1].warnings.size(), 2u);
    EXPECT_TRUE(contains(k.events[1].warnings[0].describe(), "wrapped to 0")) << k.events[1].warnings[0].describe();
    EXPECT_TRUE(contains(k.events[1].warnings[1].describe(), "wrapped to 1022")) << k.events[1].warnings[1].describe();
    EXPECT_EQ(k.events[0].memWrites.at(0).addr, 1023);
}

TEST(Memory, OutOfRangeSharedAddressesWrapWithAWarning) {
    Kernel k = run(R"(
entry:
    mov r1, 7
    st.shared [r0 + 67], r1     ; 64 + 3
    ld.shared r2, [r0 + 3]
    atom.shared r3, [r0 + 131], r1  ; 128 + 3
    jmp check
check:
    ld.shared r4, [r0 + 3]
    ld.shared r5, [r0 + 63]
    exit
)",
                   R"({"block": 1})");
    EXPECT_EQ(k.reg(0, 2), 7u);
    EXPECT_EQ(k.reg(0, 3), 7u);
    EXPECT_EQ(k.reg(0, 4), 14u);
    EXPECT_EQ(k.state().shared[0][3], 14u);
    ASSERT_EQ(k.events[0].warnings.size(), 2u);
    EXPECT_TRUE(contains(k.events[0].warnings[0].describe(), "shared")) << k.events[0].warnings[0].describe();
    EXPECT_TRUE(contains(k.events[0].warnings[0].describe(), "wrapped to 3")) << k.events[0].warnings[0].describe();
    EXPECT_TRUE(k.events[1].warnings.empty()) << "in-range addresses warn nothing";
}

TEST(Memory, EveryLaneOutOfRangeWarnsSeparately) {
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    add r1, r1, 1024
    st.global [r1], r1
    exit
)",
                   R"({"block": 4})");
    EXPECT_EQ(k.events[0].warnings.size(), 4u);
    for (uint32_t i = 0; i < 4; ++i) EXPECT_EQ(k.state().global[i], 1024 + i);
}
