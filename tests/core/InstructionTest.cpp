// ALU, compare, sel, mov and sreg semantics, each checked against hand-computed values.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <string>

#include "TestUtil.h"

using namespace qgpu;
using namespace qgpu::test;

namespace {

constexpr uint32_t kIntMin = 0x80000000u;
constexpr uint32_t kIntMax = 0x7FFFFFFFu;
constexpr uint32_t kMinus1 = 0xFFFFFFFFu;

std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%X", v);
    return buf;
}

std::string scalars(uint32_t a, uint32_t b, uint32_t c = 0) {
    return R"({"block": 1, "args": [{"name":"a","scalar":)" + std::to_string(a) + R"(},{"name":"b","scalar":)" +
           std::to_string(b) + R"(},{"name":"c","scalar":)" + std::to_string(c) + "}]}";
}

struct BinCase {
    const char* op;
    uint32_t a, b, expected;
};

// Runs `op rd, rs1, b` once with b in a register and once with b as a hex immediate.
// Returns {register form, immediate form}.
std::pair<uint32_t, uint32_t> evalBinary(const std::string& op, uint32_t a, uint32_t b) {
    std::string src =
        "entry:\n"
        "    mov r1, $a\n"
        "    mov r2, $b\n"
        "    " +
        op +
        " r3, r1, r2\n"
        "    " +
        op + " r4, r1, " + hex(b) +
        "\n"
        "    exit\n";
    Kernel k = run(src, scalars(a, b));
    return {k.reg(0, 3), k.reg(0, 4)};
}

std::string describe(const BinCase& c) { return std::string(c.op) + " " + hex(c.a) + ", " + hex(c.b); }

void checkCases(const std::vector<BinCase>& cases) {
    for (const auto& c : cases) {
        auto [viaReg, viaImm] = evalBinary(c.op, c.a, c.b);
        EXPECT_EQ(viaReg, c.expected) << describe(c) << " (register b)";
        EXPECT_EQ(viaImm, c.expected) << describe(c) << " (immediate b)";
    }
}

}  // namespace

TEST(Instruction, AddWrapsAround) {
    checkCases({
        {"add", 1, 2, 3},
        {"add", kIntMax, 1, kIntMin},
        {"add", kMinus1, 1, 0},
        {"add", kIntMin, kIntMin, 0},
        {"add", kMinus1, kMinus1, 0xFFFFFFFE},
        {"add", 0, 0, 0},
    });
}

TEST(Instruction, SubWrapsAround) {
    checkCases({
        {"sub", 7, 5, 2},
        {"sub", 5, 7, 0xFFFFFFFE},
        {"sub", 0, 1, kMinus1},
        {"sub", kIntMin, 1, kIntMax},
        {"sub", kIntMax, kMinus1, kIntMin},
        {"sub", 0, kIntMin, kIntMin},
    });
}

TEST(Instruction, MulKeepsLow32Bits) {
    checkCases({
        {"mul", 6, 7, 42},
        {"mul", 0x10000, 0x10000, 0},
        {"mul", kMinus1, kMinus1, 1},
        {"mul", 0x12345678, 0x10, 0x23456780},
        {"mul", uint32_t(-3), 5, uint32_t(-15)},
        {"mul", kIntMin, kMinus1, kIntMin},
        {"mul", 123456789, 987654321, 0xFBFF5385},
        {"mul", uint32_t(-7), 0x10000001, 0x8FFFFFF9},
        {"mul", 0, kMinus1, 0},
    });
}

TEST(Instruction, ShlAmountsAreUnsignedAndLargeAmountsGiveZero) {
    checkCases({
        {"shl", 1, 0, 1},
        {"shl", 0x80000001, 1, 2},
        {"shl", 1, 31, kIntMin},
        {"shl", 1, 32, 0},
        {"shl", 1, 33, 0},
        {"shl", kMinus1, 64, 0},  // not "amount mod 32"
        {"shl", 3, 0x100, 0},
        {"shl", 3, kIntMin, 0},
        {"shl", kMinus1, kMinus1, 0},  // -1 as an amount is huge, not -1
    });
}

TEST(Instruction, ShrIsLogical) {
    checkCases({
        {"shr", 0xF0, 4, 0xF},
        {"shr", kMinus1, 0, kMinus1},
        {"shr", kIntMin, 1, 0x40000000},
        {"shr", kIntMin, 31, 1},
        {"shr", kIntMin, 32, 0},
        {"shr", kMinus1, 33, 0},
        {"shr", kMinus1, 64, 0},
        {"shr", kMinus1, kMinus1, 0},
    });
}

TEST(Instruction, SraFillsWithTheSignBit) {
    checkCases({
        {"sra", 5, 0, 5},
        {"sra", uint32_t(-16), 2, uint32_t(-4)},
        {"sra", kIntMin, 1, 0xC0000000},
        {"sra", kIntMin, 31, kMinus1},
        {"sra", kIntMin, 32, kMinus1},
        {"sra", kIntMin, 33, kMinus1},
        {"sra", kIntMin, 64, kMinus1},
        {"sra", kIntMax, 31, 0},
        {"sra", kIntMax, 32, 0},
        {"sra", kIntMax, kMinus1, 0},
        {"sra", kMinus1, kIntMin, kMinus1},
        {"sra", 0x40000000, 30, 1},
    });
}

TEST(Instruction, Bitwise) {
    checkCases({
        {"and", 0xFF00FF00, 0x0FF00FF0, 0x0F000F00},
        {"and", kMinus1, 0, 0},
        {"or", 0xFF00FF00, 0x0FF00FF0, 0xFFF0FFF0},
        {"or", kIntMin, 1, 0x80000001},
        {"xor", 0xFF00FF00, 0x0FF00FF0, 0xF0F0F0F0},
        {"xor", kMinus1, kMinus1, 0},
    });
}

TEST(Instruction, MinMaxSignedVersusUnsigned) {
    checkCases({
        {"min", kMinus1, 1, kMinus1},
        {"min", 3, 9, 3},
        {"min", kIntMin, kIntMax, kIntMin},
        {"max", kMinus1, 1, 1},
        {"max", kIntMin, kIntMax, kIntMax},
        {"max", uint32_t(-5), uint32_t(-2), uint32_t(-2)},
        {"minu", kMinus1, 1, 1},
        {"minu", kIntMin, kIntMax, kIntMax},
        {"minu", 0, kMinus1, 0},
        {"maxu", kMinus1, 1, kMinus1},
        {"maxu", kIntMin, kIntMax, kIntMin},
        {"maxu", 3, 9, 9},
    });
}

TEST(Instruction, SignedCompares) {
    checkCases({
        {"seteq", 5, 5, 1},       {"seteq", 5, 6, 0},       {"seteq", kMinus1, kMinus1, 1},
        {"setne", 5, 5, 0},       {"setne", 5, 6, 1},       {"setne", 0, kIntMin, 1},
        {"setlt", kMinus1, 1, 1}, {"setlt", 1, kMinus1, 0}, {"setlt", kIntMin, kIntMax, 1},
        {"setlt", 4, 4, 0},       {"setle", 4, 4, 1},       {"setle", kIntMax, kIntMin, 0},
        {"setle", kMinus1, 0, 1}, {"setgt", 1, kMinus1, 1}, {"setgt", kIntMin, kIntMax, 0},
        {"setgt", 4, 4, 0},       {"setge", 4, 4, 1},       {"setge", kIntMin, kMinus1, 0},
        {"setge", 0, kMinus1, 1},
    });
}

TEST(Instruction, UnsignedCompares) {
    checkCases({
        {"setltu", kMinus1, 1, 0},
        {"setltu", 1, kMinus1, 1},
        {"setltu", kIntMax, kIntMin, 1},
        {"setltu", 4, 4, 0},
        {"setleu", 4, 4, 1},
        {"setleu", kIntMin, kIntMax, 0},
        {"setleu", 0, kMinus1, 1},
        {"setgtu", kMinus1, 1, 1},
        {"setgtu", kIntMax, kIntMin, 0},
        {"setgtu", 4, 4, 0},
        {"setgeu", 4, 4, 1},
        {"setgeu", kIntMin, kIntMax, 1},
        {"setgeu", 1, kMinus1, 0},
    });
}

TEST(Instruction, NotInvertsEveryBit) {
    const std::array<std::pair<uint32_t, uint32_t>, 4> cases{
        {{0, kMinus1}, {kMinus1, 0}, {0x0F0F0F0F, 0xF0F0F0F0}, {kIntMin, kIntMax}}};
    for (auto [a, expected] : cases) {
        Kernel k = run("entry:\n  mov r1, $a\n  not r2, r1\n  exit\n", scalars(a, 0));
        EXPECT_EQ(k.reg(0, 2), expected) << "not " << hex(a);
    }
}

TEST(Instruction, MovImmediateForms) {
    Kernel k = run(R"(
entry:
    mov r1, 42
    mov r2, -1
    mov r3, 0xDEADBEEF
    mov r4, -0x10
    jmp more
more:
    mov r5, 4294967295
    mov r6, -2147483648
    mov r7, r3
    mov r8, $a
    exit
)",
                   scalars(0x12345678, 0));
    EXPECT_EQ(k.reg(0, 1), 42u);
    EXPECT_EQ(k.reg(0, 2), kMinus1);
    EXPECT_EQ(k.reg(0, 3), 0xDEADBEEFu);
    EXPECT_EQ(k.reg(0, 4), 0xFFFFFFF0u);
    EXPECT_EQ(k.reg(0, 5), kMinus1);
    EXPECT_EQ(k.reg(0, 6), kIntMin);
    EXPECT_EQ(k.reg(0, 7), 0xDEADBEEFu);
    EXPECT_EQ(k.reg(0, 8), 0x12345678u);
}

TEST(Instruction, SelPicksRs1WhenConditionNonZero) {
    const char* src = R"(
entry:
    mov r1, $a
    mov r2, $b
    mov r5, $c
    sel r3, r1, r2, r5
    jmp imm
imm:
    sel r4, r1, 0x77, r5
    exit
)";
    struct {
        uint32_t cond;
        bool takesA;
    } cases[] = {{0, false}, {1, true}, {kIntMin, true}, {kMinus1, true}, {2, true}};
    for (auto c : cases) {
        Kernel k = run(src, scalars(111, 222, c.cond));
        EXPECT_EQ(k.reg(0, 3), c.takesA ? 111u : 222u) << "cond " << hex(c.cond);
        EXPECT_EQ(k.reg(0, 4), c.takesA ? 111u : 0x77u) << "cond " << hex(c.cond);
    }
}

TEST(Instruction, SelConditionIsPerLane) {
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    and r2, r1, 1
    mov r3, 100
    sel r4, r3, r1, r2     ; odd lanes: 100, even lanes: their lane id
    exit
)",
                   R"({"block": 4})");
    EXPECT_EQ(k.reg(0, 4), 0u);
    EXPECT_EQ(k.reg(1, 4), 100u);
    EXPECT_EQ(k.reg(2, 4), 2u);
    EXPECT_EQ(k.reg(3, 4), 100u);
}

TEST(Instruction, R0ReadsZeroAndIgnoresWrites) {
    Kernel k = run(R"(
entry:
    mov r0, 5
    add r1, r0, 7
    sreg r0, laneid
    ld.global r0, [r0 + $out]
    jmp next
next:
    not r0, r0
    add r2, r0, r0
    shfl.idx r0, r1, 0, 4
    st.global [r0 + $out], r0
    exit
)",
                   R"({"block": 2, "args": [{"name":"out","array":[99]}]})");
    for (int t = 0; t < 2; ++t) {
        EXPECT_EQ(k.reg(t, 0), 0u);
        EXPECT_EQ(k.reg(t, 1), 7u);
        EXPECT_EQ(k.reg(t, 2), 0u);
    }
    EXPECT_EQ(k.array("out"), std::vector<int64_t>{0});
    for (const auto& ev : k.events)
        for (const auto& w : ev.regWrites) EXPECT_NE(w.reg, 0) << "an event records a write to r0";
}

TEST(Instruction, RegistersAreIndependentPerLane) {
    Kernel k = run(R"(
entry:
    sreg r1, laneid
    mul r2, r1, r1
    add r15, r2, 1000
    exit
)",
                   R"({"block": 4})");
    for (int lane = 0; lane < 4; ++lane) {
        EXPECT_EQ(k.reg(lane, 2), uint32_t(lane * lane));
        EXPECT_EQ(k.reg(lane, 15), uint32_t(lane * lane + 1000));
    }
}

namespace {

const char* kAllSregs = R"(
entry:
    sreg r1, tid.x
    sreg r2, tid.y
    sreg r3, tid.z
    sreg r4, ntid.x
    jmp b1
b1:
    sreg r5, ntid.y
    sreg r6, ntid.z
    sreg r7, ctaid.x
    sreg r8, ctaid.y
    jmp b2
b2:
    sreg r9, ctaid.z
    sreg r10, nctaid.x
    sreg r11, nctaid.y
    sreg r12, nctaid.z
    jmp b3
b3:
    sreg r13, laneid
    sreg r14, warpid
    exit
)";

struct Sregs {
    uint32_t tid[3], ntid[3], ctaid[3], nctaid[3], laneid, warpid;
};

void expectSregs(const Kernel& k, int slot, const Sregs& e) {
    uint32_t want[14] = {e.tid[0],   e.tid[1],   e.tid[2],    e.ntid[0],   e.ntid[1],   e.ntid[2], e.ctaid[0],
                         e.ctaid[1], e.ctaid[2], e.nctaid[0], e.nctaid[1], e.nctaid[2], e.laneid,  e.warpid};
    const char* names[14] = {"tid.x",   "tid.y",   "tid.z",    "ntid.x",   "ntid.y",   "ntid.z", "ctaid.x",
                             "ctaid.y", "ctaid.z", "nctaid.x", "nctaid.y", "nctaid.z", "laneid", "warpid"};
    for (int i = 0; i < 14; ++i) EXPECT_EQ(k.reg(slot, i + 1), want[i]) << names[i] << " of slot " << slot;
}

}  // namespace

TEST(Instruction, SpecialRegistersFor2DBlockAnd2DGrid) {
    // block 3x2 = 6 threads = 2 warps (the second one partial), grid 2x2 = 4 thread blocks.
    Kernel k = run(kAllSregs, R"({"grid": [2, 2], "block": [3, 2]})");
    ASSERT_EQ(k.state().threads.size(), 4u * 8u);
    const uint32_t tidXY[6][2] = {{0, 0}, {1, 0}, {2, 0}, {0, 1}, {1, 1}, {2, 1}};
    const uint32_t lane[6] = {0, 1, 2, 3, 0, 1};
    const uint32_t warp[6] = {0, 0, 0, 0, 1, 1};
    const uint32_t ctaXY[4][2] = {{0, 0}, {1, 0}, {0, 1}, {1, 1}};
    for (int cta = 0; cta < 4; ++cta) {
        for (int t = 0; t < 6; ++t) {
            int slot = cta * 8 + t;
            expectSregs(k, slot,
                        {{tidXY[t][0], tidXY[t][1], 0},
                         {3, 2, 1},
                         {ctaXY[cta][0], ctaXY[cta][1], 0},
                         {2, 2, 1},
                         lane[t],
                         warp[t]});
            EXPECT_EQ(k.state().threads[size_t(slot)].status, LaneStatus::Exited);
        }
        for (int t = 6; t < 8; ++t) {  // the two absent slots of the partial warp never run
            const ThreadState& th = k.state().threads[size_t(cta * 8 + t)];
            EXPECT_EQ(th.status, LaneStatus::Absent);
            EXPECT_EQ(th.regs, (std::array<uint32_t, 16>{}));
        }
    }
}

TEST(Instruction, SpecialRegistersFor3DBlockAnd3DGrid) {
    Kernel k = run(kAllSregs, R"({"grid": [1, 2, 3], "block": [2, 2, 2]})");
    ASSERT_EQ(k.state().threads.size(), 6u * 8u);
    const uint32_t tid[8][3] = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {1, 1, 0}, {0, 0, 1}, {1, 0, 1}, {0, 1, 1}, {1, 1, 1}};
    const uint32_t cta[6][3] = {{0, 0, 0}, {0, 1, 0}, {0, 0, 1}, {0, 1, 1}, {0, 0, 2}, {0, 1, 2}};
    for (int c = 0; c < 6; ++c)
        for (int t = 0; t < 8; ++t)
            expectSregs(k, c * 8 + t,
                        {{tid[t][0], tid[t][1], tid[t][2]},
                         {2, 2, 2},
                         {cta[c][0], cta[c][1], cta[c][2]},
                         {1, 2, 3},
                         uint32_t(t % 4),
                         uint32_t(t / 4)});
}

TEST(Instruction, EventsRecordRegisterWritesWithBeforeAndAfter) {
    Kernel k = load(R"(
entry:
    sreg r1, laneid
    add r1, r1, 10
    exit
)",
                    R"({"block": 2})");
    StepEvent ev = k.step();
    // lane 0: r1 0 -> 0 (sreg) then 0 -> 10; lane 1: r1 0 -> 1 then 1 -> 11; instruction by instruction
    ASSERT_EQ(ev.regWrites.size(), 4u);
    const RegWrite expected[4] = {{0, 1, 0, 0}, {1, 1, 0, 1}, {0, 1, 0, 10}, {1, 1, 1, 11}};
    for (size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(ev.regWrites[i].thread, expected[i].thread) << i;
        EXPECT_EQ(ev.regWrites[i].reg, expected[i].reg) << i;
        EXPECT_EQ(ev.regWrites[i].before, expected[i].before) << i;
        EXPECT_EQ(ev.regWrites[i].after, expected[i].after) << i;
    }
    EXPECT_EQ(ev.step, 0);
    EXPECT_EQ(ev.block, 0);
    EXPECT_EQ(ev.maskBefore, 0b0011);
    EXPECT_EQ(ev.maskAfter, 0);
    EXPECT_TRUE(ev.memWrites.empty());
    EXPECT_TRUE(ev.warnings.empty());
}
