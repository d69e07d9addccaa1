// The interpreter's out-of-bounds warnings: an access that leaves the array its address points into, found by
// following array bases from the linked immediates through the address arithmetic.
#include <gtest/gtest.h>

#include "TestUtil.h"

using namespace qgpu;
using namespace qgpu::test;

namespace {

std::vector<std::string> boundsWarnings(const Kernel& k) {
    std::vector<std::string> out;
    for (const StepEvent& ev : k.events)
        for (const StepWarning& w : ev.warnings)
            if (w.kind == StepWarning::Kind::OutOfBounds) out.push_back(w.describe());
    return out;
}

constexpr const char* kTwoArrays =
    R"({"block": 4, "args": [{"name":"a","array":[1,2,3]}, {"name":"b","array":[7,8]}, {"name":"out","zeros":4}]})";

}  // namespace

TEST(ArrayBounds, AReadPastAnArraysEndIntoTheNextIsReportedWithBothNames) {
    // a is words 1..3 and b words 4..5: thread 3 reads a[3], which is b[0], and gets 7 as the machine does.
    Kernel k = run(R"(
entry:
    sreg r1, tid.x
    ld.global r2, [r1 + $a]
    st.global [r1 + $out], r2
    exit
)",
                   kTwoArrays);
    EXPECT_EQ(k.array("out"), (std::vector<int64_t>{1, 2, 3, 7}));
    std::vector<std::string> warnings = boundsWarnings(k);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0], "instruction 1, lane 3: out-of-bounds read of a[3]: a has 3 elements, and word 4 is b[0]");
}

TEST(ArrayBounds, PointersKeepTheirArrayThroughArithmeticAndASelect) {
    // r3 points into b (a base plus an index, then a byte address and back); r5 into a or b by a select;
    // the writes go before b's start and past its end.
    Kernel k = run(R"(
entry:
    sreg r1, tid.x
    add r3, r1, $b
    shl r3, r3, 2
    shr r3, r3, 2
    jmp more
more:
    sub r4, r3, 3           ; b[tid - 3]: only thread 3 stays inside
    st.global [r4], r1
    seteq r6, r1, 0
    sel r5, r3, r4, r6      ; thread 0: r3, the others r4
    jmp last
last:
    ld.global r7, [r5 + 1]  ; thread 0: b[1]; threads 1..3: b[tid - 2], inside for 2 and 3
    exit
)",
                   kTwoArrays);
    std::vector<std::string> warnings = boundsWarnings(k);
    ASSERT_EQ(warnings.size(), 4u) << ::testing::PrintToString(warnings);
    EXPECT_EQ(warnings[0], "instruction 1, lane 0: out-of-bounds write of b[-3]: b has 2 elements, and word 1 is a[0]");
    EXPECT_EQ(warnings[2], "instruction 1, lane 2: out-of-bounds write of b[-1]: b has 2 elements, and word 3 is a[2]");
    EXPECT_EQ(warnings[3], "instruction 0, lane 1: out-of-bounds read of b[-1]: b has 2 elements, and word 3 is a[2]");
}

TEST(ArrayBounds, ADifferenceOfPointersOrALoadedValuePointsIntoNoArray) {
    // r3 = b - a is an offset, not a pointer; r4 is a loaded word: neither access is checked against a or b.
    Kernel k = run(R"(
entry:
    mov r2, $a
    mov r3, $b
    sub r3, r3, r2
    ld.global r4, [r3 + 6]
    jmp more
more:
    ld.global r5, [r4]
    st.global [r0 + $out], r5
    exit
)",
                   kTwoArrays);
    EXPECT_TRUE(boundsWarnings(k).empty());
}
