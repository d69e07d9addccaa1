// Warp shuffles (PTX shfl.sync semantics on a 4-lane warp): every mode, width and operand kind.
#include <gtest/gtest.h>

#include <cstdio>

#include "TestUtil.h"

using namespace qgpu;
using namespace qgpu::test;

namespace {

enum class Mode { Idx, Up, Down, Bfly };
const char* mnemonic(Mode m) {
    switch (m) {
        case Mode::Idx: return "shfl.idx";
        case Mode::Up: return "shfl.up";
        case Mode::Down: return "shfl.down";
        case Mode::Bfly: return "shfl.bfly";
    }
    return "?";
}

// Value lane l holds before the shuffle.
uint32_t value(int lane) { return 1000u + 111u * uint32_t(lane); }

// The lane whose value lane `lane` receives, written from the PTX definition (all lanes active).
int sourceLane(Mode m, int lane, uint32_t b, int width) {
    int bval = int(b & 31);
    int minLane = lane & ~(width - 1);
    int maxLane = minLane + width - 1;
    int j = lane;
    bool valid = true;
    switch (m) {
        case Mode::Up:
            j = lane - bval;
            valid = j >= minLane;
            break;
        case Mode::Down:
            j = lane + bval;
            valid = j <= maxLane;
            break;
        case Mode::Bfly:
            j = lane ^ bval;
            valid = j <= maxLane;
            break;
        case Mode::Idx: j = minLane | (bval & (width - 1)); break;
    }
    return valid ? j : lane;
}

std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%X", v);
    return buf;
}

const char* kPrologue = R"(
entry:
    sreg r1, laneid
    mul r2, r1, 111
    add r2, r2, 1000
    mov r4, $b
    jmp go
go:
)";

// Runs the shuffle with b as an immediate; returns what each lane received in r3.
std::vector<uint32_t> shuffleImm(Mode m, uint32_t b, int width, Kernel* out = nullptr) {
    std::string src = std::string(kPrologue) + "    " + mnemonic(m) + " r3, r2, " + hex(b) + ", " +
                      std::to_string(width) + "\n    exit\n";
    Kernel k = run(src, R"({"block": 4, "args": [{"name":"b","scalar":0}]})");
    std::vector<uint32_t> got;
    for (int lane = 0; lane < 4; ++lane) got.push_back(k.reg(lane, 3));
    if (out) *out = std::move(k);
    return got;
}

// Runs the shuffle with b in a register holding b0 + lane (a different b per lane).
std::vector<uint32_t> shuffleReg(Mode m, uint32_t b0, int width) {
    std::string src = std::string(kPrologue) + "    add r4, r4, r1\n    " + mnemonic(m) + " r3, r2, r4, " +
                      std::to_string(width) + "\n    exit\n";
    Kernel k = run(src, R"({"block": 4, "args": [{"name":"b","scalar":)" + std::to_string(b0) + "}]}");
    std::vector<uint32_t> got;
    for (int lane = 0; lane < 4; ++lane) got.push_back(k.reg(lane, 3));
    return got;
}

std::vector<uint32_t> values(std::initializer_list<int> lanes) {
    std::vector<uint32_t> v;
    for (int l : lanes) v.push_back(value(l));
    return v;
}

const Mode kModes[] = {Mode::Idx, Mode::Up, Mode::Down, Mode::Bfly};
const int kWidths[] = {1, 2, 4};
const uint32_t kBs[] = {0, 1, 2, 3, 4, 5, 7, 31, 32, 33, 35, 0x80000001, 0xFFFFFFFF};

}  // namespace

TEST(Shuffle, HandComputedCases) {
    EXPECT_EQ(shuffleImm(Mode::Up, 1, 4), values({0, 0, 1, 2}));
    EXPECT_EQ(shuffleImm(Mode::Up, 2, 4), values({0, 1, 0, 1}));
    EXPECT_EQ(shuffleImm(Mode::Up, 1, 2), values({0, 0, 2, 2}));
    EXPECT_EQ(shuffleImm(Mode::Down, 1, 4), values({1, 2, 3, 3}));
    EXPECT_EQ(shuffleImm(Mode::Down, 2, 4), values({2, 3, 2, 3}));
    EXPECT_EQ(shuffleImm(Mode::Down, 1, 2), values({1, 1, 3, 3}));
    EXPECT_EQ(shuffleImm(Mode::Bfly, 1, 4), values({1, 0, 3, 2}));
    EXPECT_EQ(shuffleImm(Mode::Bfly, 3, 4), values({3, 2, 1, 0}));
    EXPECT_EQ(shuffleImm(Mode::Bfly, 1, 2), values({1, 0, 3, 2}));
    // PTX checks only j <= maxLane for bfly: lanes of the upper half may reach below their segment
    EXPECT_EQ(shuffleImm(Mode::Bfly, 2, 2), values({0, 1, 0, 1}));
    EXPECT_EQ(shuffleImm(Mode::Idx, 2, 4), values({2, 2, 2, 2}));
    EXPECT_EQ(shuffleImm(Mode::Idx, 3, 2), values({1, 1, 3, 3}));
    EXPECT_EQ(shuffleImm(Mode::Idx, 6, 4), values({2, 2, 2, 2}));   // b masked to the segment
    EXPECT_EQ(shuffleImm(Mode::Idx, 33, 4), values({1, 1, 1, 1}));  // b & 31 = 1
    EXPECT_EQ(shuffleImm(Mode::Up, 33, 4), values({0, 0, 1, 2}));
    EXPECT_EQ(shuffleImm(Mode::Down, 32, 4), values({0, 1, 2, 3}));
    for (Mode m : {Mode::Idx, Mode::Up, Mode::Down})
        EXPECT_EQ(shuffleImm(m, 1, 1), values({0, 1, 2, 3})) << mnemonic(m) << " width 1";
    // the same bfly rule at width 1: lane 1 reads lane 0 (j = 0 <= maxLane = 1), lane 3 reads lane 2
    EXPECT_EQ(shuffleImm(Mode::Bfly, 1, 1), values({0, 0, 2, 2}));
}

TEST(Shuffle, EveryModeWidthAndImmediateMatchesPtx) {
    for (Mode m : kModes)
        for (int w : kWidths)
            for (uint32_t b : kBs) {
                std::vector<uint32_t> expected;
                for (int lane = 0; lane < 4; ++lane) expected.push_back(value(sourceLane(m, lane, b, w)));
                EXPECT_EQ(shuffleImm(m, b, w), expected) << mnemonic(m) << " b=" << hex(b) << " width " << w;
            }
}

TEST(Shuffle, EveryModeWidthWithPerLaneRegisterB) {
    for (Mode m : kModes)
        for (int w : kWidths)
            for (uint32_t b0 : {0u, 1u, 2u, 30u, 0xFFFFFFFEu}) {
                std::vector<uint32_t> expected;
                for (int lane = 0; lane < 4; ++lane)
                    expected.push_back(value(sourceLane(m, lane, b0 + uint32_t(lane), w)));
                EXPECT_EQ(shuffleReg(m, b0, w), expected) << mnemonic(m) << " b=" << b0 << "+lane width " << w;
            }
}

TEST(Shuffle, IdxWithRegisterReversesTheWarp) {
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    mul r2, r1, 111
    add r2, r2, 1000
    sub r4, r0, r1
    jmp go
go:
    add r4, r4, 3           ; 3 - lane
    shfl.idx r3, r2, r4, 4
    exit
)",
                   R"({"block": 4})");
    for (int lane = 0; lane < 4; ++lane) EXPECT_EQ(k.reg(lane, 3), value(3 - lane));
}

TEST(Shuffle, AllLanesReadBeforeAnyWrites) {
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    mul r2, r1, 111
    add r2, r2, 1000
    shfl.up r2, r2, 1, 4    ; in place: must not cascade lane 0's value
    exit
)",
                   R"({"block": 4})");
    std::vector<uint32_t> got;
    for (int lane = 0; lane < 4; ++lane) got.push_back(k.reg(lane, 2));
    EXPECT_EQ(got, values({0, 0, 1, 2}));
}

TEST(Shuffle, OutOfSegmentSourcesGiveOwnValueWithoutWarning) {
    Kernel k;
    EXPECT_EQ(shuffleImm(Mode::Up, 3, 4, &k), values({0, 1, 2, 0}));
    EXPECT_TRUE(k.allWarnings().empty());
    EXPECT_EQ(shuffleImm(Mode::Down, 5, 2, &k), values({0, 1, 2, 3}));
    EXPECT_TRUE(k.allWarnings().empty());
    EXPECT_EQ(shuffleImm(Mode::Bfly, 4, 4, &k), values({0, 1, 2, 3}));
    EXPECT_TRUE(k.allWarnings().empty());
}

TEST(Shuffle, InactiveSourceLaneGivesOwnValueAndAWarning) {
    Kernel k = run(R"(
entry:                      ; 0
    sreg r1, laneid
    mul r2, r1, 111
    add r2, r2, 1000
    setne r5, r1, 3
    br r5, work, quit
quit:                       ; 1: lane 3 leaves first
    exit
work:                       ; 2: lanes 0..2
    shfl.down r3, r2, 1, 4  ; lane 2 reads the exited lane 3
    shfl.idx r4, r2, 3, 4   ; everyone reads lane 3
    shfl.up r6, r2, 2, 4    ; lanes 0, 1 out of segment (no warning), lane 2 reads lane 0
    exit
)",
                   R"({"block": 4})");
    const StepEvent& ev = k.events.at(2);
    ASSERT_EQ(ev.block, 2);
    ASSERT_EQ(ev.maskBefore, 0b0111);
    EXPECT_EQ(k.reg(0, 3), value(1));
    EXPECT_EQ(k.reg(1, 3), value(2));
    EXPECT_EQ(k.reg(2, 3), value(2));
    for (int lane = 0; lane < 3; ++lane) EXPECT_EQ(k.reg(lane, 4), value(lane));
    EXPECT_EQ(k.reg(0, 6), value(0));
    EXPECT_EQ(k.reg(1, 6), value(1));
    EXPECT_EQ(k.reg(2, 6), value(0));
    EXPECT_EQ(k.reg(3, 3), 0u) << "the exited lane is not written";
    ASSERT_EQ(ev.warnings.size(), 4u);  // 1 from shfl.down, 3 from shfl.idx, none from shfl.up
    for (const auto& w : ev.warnings) {
        EXPECT_EQ(w.kind, StepWarning::Kind::InactiveLane);
        EXPECT_NE(w.text.find("lane 3"), std::string::npos) << w.text;
        EXPECT_NE(w.text.find("inactive"), std::string::npos) << w.text;
    }
    int writes = 0;
    for (const auto& w : ev.regWrites) writes += w.reg == 3 || w.reg == 4 || w.reg == 6;
    EXPECT_EQ(writes, 9) << "three shuffles, three active lanes each";
}

TEST(Shuffle, AbsentLaneOfPartialWarpIsInactive) {
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    mul r2, r1, 111
    add r2, r2, 1000
    shfl.down r3, r2, 1, 4
    exit
)",
                   R"({"block": 3})");
    EXPECT_EQ(k.reg(0, 3), value(1));
    EXPECT_EQ(k.reg(1, 3), value(2));
    EXPECT_EQ(k.reg(2, 3), value(2));
    ASSERT_EQ(k.events[0].warnings.size(), 1u);
    EXPECT_NE(k.events[0].warnings[0].text.find("lane 3"), std::string::npos) << k.events[0].warnings[0].describe();
}

TEST(Shuffle, PrefixSumWithinAWarp) {
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    add r2, r1, 1           ; x = lane + 1
    shfl.up r3, r2, 1, 4
    setge r4, r1, 1
    jmp s1
s1:
    sel r3, r3, 0, r4
    add r2, r2, r3
    shfl.up r3, r2, 2, 4
    setge r4, r1, 2
    jmp s2
s2:
    sel r3, r3, 0, r4
    add r2, r2, r3
    exit
)",
                   R"({"block": 4})");
    for (int lane = 0; lane < 4; ++lane) EXPECT_EQ(k.reg(lane, 2), uint32_t((lane + 1) * (lane + 2) / 2));
}
