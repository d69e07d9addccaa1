// SIMT control flow: min-PC reconvergence, per-lane loops, early exits, scheduling order.
#include <gtest/gtest.h>

#include "TestUtil.h"

using namespace qgpu;
using namespace qgpu::test;

namespace {

using BlockMask = std::pair<int, int>;

// (block, maskBefore, maskAfter) of each event.
struct Sched {
    int block, before, after;
    bool operator==(const Sched&) const = default;
};

std::vector<Sched> schedule(const Kernel& k) {
    std::vector<Sched> out;
    for (const auto& ev : k.events) out.push_back({ev.block, ev.maskBefore, ev.maskAfter});
    return out;
}

std::string show(const std::vector<Sched>& s) {
    std::string out;
    for (const auto& e : s)
        out += "(" + std::to_string(e.block) + ", " + maskString(uint8_t(e.before), 4) + " -> " +
               maskString(uint8_t(e.after), 4) + ") ";
    return out;
}

}  // namespace

TEST(Divergence, NestedIfElseReconvergesAtMinimumPc) {
    // if (lane >= 2) { hi } else { if (lane odd) lo_odd else lo_even; lo_join } ; join
    Kernel k = run(R"(
entry:                      ; 0
    sreg r1, laneid
    and r2, r1, 1           ; odd
    and r3, r1, 2           ; lane >= 2
    br r3, hi, lo
lo:                         ; 1: lanes 0, 1
    br r2, lo_odd, lo_even
lo_even:                    ; 2: lane 0
    mov r4, 10
    jmp lo_join
lo_odd:                     ; 3: lane 1
    mov r4, 11
    jmp lo_join
lo_join:                    ; 4: lanes 0, 1 again
    add r5, r4, 100
    jmp join
hi:                         ; 5: lanes 2, 3
    mov r4, 20
    add r5, r4, r1
    jmp join
join:                       ; 6: everyone
    st.global [r1 + $out], r5
    exit
)",
                   R"({"block": 4, "args": [{"name":"out","zeros":4}]})");
    std::vector<Sched> expected = {
        {0, 0b1111, 0b0011},                       // lanes 0,1 wait at block 1, lanes 2,3 at block 5
        {1, 0b0011, 0b0001},                       // lane 0 -> 2, lane 1 -> 3
        {2, 0b0001, 0b0010}, {3, 0b0010, 0b0011},  // reconverge at lo_join
        {4, 0b0011, 0b1100}, {5, 0b1100, 0b1111},  // reconverge at join
        {6, 0b1111, 0b0000},
    };
    EXPECT_EQ(schedule(k), expected) << show(schedule(k));
    EXPECT_EQ(k.array("out"), (std::vector<int64_t>{110, 111, 22, 23}));
    for (size_t i = 0; i < k.events.size(); ++i) {
        EXPECT_EQ(k.events[i].step, int(i));
        EXPECT_EQ(k.events[i].warp, 0);
        EXPECT_EQ(k.events[i].cta, 0);
    }
}

TEST(Divergence, LaneChangesRecordBranchTargets) {
    Kernel k = load(R"(
entry:
    sreg r1, laneid
    setlt r2, r1, 1
    br r2, left, right
right:
    exit
left:
    exit
)",
                    R"({"block": 4})");
    StepEvent ev = k.step();
    ASSERT_EQ(ev.laneChanges.size(), 4u);
    for (const auto& c : ev.laneChanges) {
        EXPECT_EQ(c.pcBefore, 0);
        EXPECT_EQ(c.pcAfter, c.thread == 0 ? 2 : 1) << "thread " << c.thread;
        EXPECT_EQ(c.statusBefore, LaneStatus::Live);
        EXPECT_EQ(c.statusAfter, LaneStatus::Live);
    }
    EXPECT_EQ(ev.maskAfter, 0b1110);
    ev = k.step();  // right: lanes 1..3 exit
    EXPECT_EQ(ev.block, 1);
    for (const auto& c : ev.laneChanges) EXPECT_EQ(c.statusAfter, LaneStatus::Exited);
    EXPECT_EQ(ev.maskAfter, 0b0001);
    ev = k.step();
    EXPECT_EQ(ev.block, 2);
    EXPECT_EQ(ev.maskBefore, 0b0001);
    EXPECT_EQ(ev.maskAfter, 0);
    EXPECT_TRUE(k.interp->done());
    EXPECT_EQ(k.state().run, RunState::Finished);
}

TEST(Divergence, LoopWithPerLaneTripCounts) {
    Kernel k = run(R"(
entry:                      ; 0
    sreg r1, laneid
    add r2, r1, 1           ; trip count = lane + 1
    mov r3, 0               ; sum
    mov r4, 0               ; i
    jmp loop
loop:                       ; 1
    add r4, r4, 1
    add r3, r3, r4
    setlt r5, r4, r2
    br r5, loop, done
done:                       ; 2
    st.global [r1 + $out], r3
    st.global [r1 + $trips], r4
    exit
)",
                   R"({"block": 4, "args": [{"name":"out","zeros":4}, {"name":"trips","zeros":4}]})");
    std::vector<Sched> expected = {
        {0, 0b1111, 0b1111}, {1, 0b1111, 0b1110}, {1, 0b1110, 0b1100},
        {1, 0b1100, 0b1000}, {1, 0b1000, 0b1111}, {2, 0b1111, 0b0000},
    };
    EXPECT_EQ(schedule(k), expected) << show(schedule(k));
    std::vector<int64_t> sums, trips;
    for (int lane = 0; lane < 4; ++lane) {
        int s = 0;
        for (int i = 1; i <= lane + 1; ++i) s += i;
        sums.push_back(s);
        trips.push_back(lane + 1);
    }
    EXPECT_EQ(k.array("out"), sums);
    EXPECT_EQ(k.array("trips"), trips);
}

TEST(Divergence, TripCountsFromMemoryIncludingZero) {
    // while (i < n[t]) { acc += i * i; i++ } with n from memory, 8 threads in two warps.
    const std::vector<int64_t> n = {3, 0, 5, 1, 0, 2, 7, 4};
    std::string launch = R"({"block": 8, "args": [{"name":"n","array":[3,0,5,1,0,2,7,4]}, {"name":"out","zeros":8}]})";
    Kernel k = run(R"(
entry:
    sreg r1, tid.x
    ld.global r2, [r1 + $n]
    mov r3, 0               ; i
    mov r4, 0               ; acc
    jmp cond
cond:
    setlt r5, r3, r2
    br r5, body, done
body:
    mul r6, r3, r3
    add r4, r4, r6
    add r3, r3, 1
    jmp cond
done:
    st.global [r1 + $out], r4
    exit
)",
                   launch);
    std::vector<int64_t> expected;
    for (int32_t m : n) {
        int32_t acc = 0;
        for (int32_t i = 0; i < m; ++i) acc += i * i;
        expected.push_back(acc);
    }
    EXPECT_EQ(k.array("out"), expected);
    // warp 0 finishes entirely before warp 1 starts: the scheduler picks the lowest warp with a live lane
    bool seenWarp1 = false;
    for (const auto& ev : k.events) {
        if (ev.warp == 1)
            seenWarp1 = true;
        else
            EXPECT_FALSE(seenWarp1) << "warp 0 ran after warp 1 had started";
    }
    // warp 0's `done` block runs once, with all four lanes (they reconverge there)
    int doneRuns = 0;
    for (const auto& ev : k.events)
        if (ev.warp == 0 && ev.block == 3) {
            ++doneRuns;
            EXPECT_EQ(ev.maskBefore, 0b1111);
        }
    EXPECT_EQ(doneRuns, 1);
}

TEST(Divergence, WhileLoopWithConditionAtTheTop) {
    // x = lane + 1; while (x < 10) { x *= 2; count++ }
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    add r2, r1, 1
    mov r3, 0
    jmp cond
cond:
    setlt r4, r2, 10
    br r4, body, done
body:
    shl r2, r2, 1
    add r3, r3, 1
    jmp cond
done:
    st.global [r1 + $x], r2
    st.global [r1 + $count], r3
    exit
)",
                   R"({"block": 4, "args": [{"name":"x","zeros":4}, {"name":"count","zeros":4}]})");
    std::vector<int64_t> xs, counts;
    for (int lane = 0; lane < 4; ++lane) {
        int x = lane + 1, c = 0;
        while (x < 10) x *= 2, ++c;
        xs.push_back(x);
        counts.push_back(c);
    }
    EXPECT_EQ(k.array("x"), xs);          // 16, 16, 24, 16
    EXPECT_EQ(k.array("count"), counts);  // 4, 3, 3, 2
    // body runs while any lane still loops: lane 0 needs 4 iterations, so 4 body steps
    int bodySteps = 0;
    for (const auto& ev : k.events) bodySteps += ev.block == 2;
    EXPECT_EQ(bodySteps, 4);
}

TEST(Divergence, EarlyExitOfSomeLanes) {
    Kernel k = run(R"(
entry:                      ; 0
    sreg r1, laneid
    setge r2, r1, 2
    br r2, quit, work
quit:                       ; 1: lanes 2, 3 leave first (lower pc)
    exit
work:                       ; 2: lanes 0, 1
    add r3, r1, 40
    st.global [r1 + $out], r3
    jmp more
more:                       ; 3
    add r3, r3, 1
    st.global [r1 + $out2], r3
    exit
)",
                   R"({"block": 4, "args": [{"name":"out","zeros":4}, {"name":"out2","zeros":4}]})");
    std::vector<Sched> expected = {
        {0, 0b1111, 0b1100},
        {1, 0b1100, 0b0011},
        {2, 0b0011, 0b0011},
        {3, 0b0011, 0b0000},
    };
    EXPECT_EQ(schedule(k), expected) << show(schedule(k));
    EXPECT_EQ(k.array("out"), (std::vector<int64_t>{40, 41, 0, 0}));
    EXPECT_EQ(k.array("out2"), (std::vector<int64_t>{41, 42, 0, 0}));
    for (int lane = 0; lane < 4; ++lane) EXPECT_EQ(k.state().threads[size_t(lane)].status, LaneStatus::Exited);
    // the exited lanes never executed `work`
    EXPECT_EQ(k.reg(2, 3), 0u);
    EXPECT_EQ(k.reg(3, 3), 0u);
}

TEST(Divergence, ExitedLanesAreNotRescheduled) {
    // lanes 1 and 3 exit at a high pc; the others loop back to a lower one and must run alone.
    Kernel k = run(R"(
entry:                      ; 0
    sreg r1, laneid
    and r2, r1, 1
    mov r3, 0
    jmp top
top:                        ; 1
    add r3, r3, 1
    seteq r4, r3, 3
    or r5, r4, r2           ; odd lanes stop at once, even lanes after 3 rounds
    br r5, out, top
out:                        ; 2
    st.global [r1 + $n], r3
    exit
)",
                   R"({"block": 4, "args": [{"name":"n","zeros":4}]})");
    std::vector<Sched> expected = {
        {0, 0b1111, 0b1111}, {1, 0b1111, 0b0101},
        {1, 0b0101, 0b0101}, {1, 0b0101, 0b1111},  // all four reconverge at `out`
        {2, 0b1111, 0b0000},
    };
    EXPECT_EQ(schedule(k), expected) << show(schedule(k));
    EXPECT_EQ(k.array("n"), (std::vector<int64_t>{3, 1, 3, 1}));
}

TEST(Divergence, PeekPredictsTheNextStep) {
    Kernel k = load(R"(
entry:
    sreg r1, laneid
    and r2, r1, 1
    br r2, odd, even
even:
    exit
odd:
    exit
)",
                    R"({"block": 6})");  // warp 1 is partial: lanes 2, 3 absent
    while (!k.interp->done()) {
        NextStep n = k.interp->peek();
        StepEvent ev = k.step();
        EXPECT_EQ(ev.warp, n.warp);
        EXPECT_EQ(ev.block, n.block);
        EXPECT_EQ(ev.maskBefore, n.mask);
    }
    EXPECT_EQ(k.interp->peek().warp, -1);
    EXPECT_EQ(blockMasks(k.events),
              (std::vector<BlockMask>{{0, 0b1111}, {1, 0b0101}, {2, 0b1010}, {0, 0b0011}, {1, 0b0001}, {2, 0b0010}}));
    EXPECT_EQ(k.state().steps, 6);
    // stepping a finished machine does nothing
    StepEvent none = k.interp->step();
    EXPECT_EQ(none.maskBefore, 0);
    EXPECT_EQ(k.state().steps, 6);
}

TEST(Divergence, RunToCompletionReportsEndlessLoops) {
    Program p = assemble("spin:\n    jmp spin\n");
    LaunchSpec l = parseLaunchSpec(R"({"block": 1})");
    Interpreter in(linkLaunch(p, l).program, l);
    std::string msg = diagnosticOf([&] { runToCompletion(in, 50); });
    EXPECT_NE(msg.find("50 steps"), std::string::npos) << msg;
}
