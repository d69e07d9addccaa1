// What a call of a recursive function keeps: the registers live after each PTX instruction.
#include <gtest/gtest.h>

#include "PtxLiveness.h"
#include "qgpu/compiler/Ptx.h"

using namespace qgpu;

namespace {

std::vector<std::set<std::string>> liveIn(const std::string& body) {
    ptx::Module m = ptx::parse(
        ".version 7.0\n.target sm_75\n.address_size 64\n"
        ".visible .func (.param .b32 r) f(.param .b32 x)\n{\n"
        "  .reg .pred %p<4>;\n  .reg .b32 %r<20>;\n  .reg .b64 %rd<4>;\n" +
        body + "}\n");
    return lowering::liveAfter(m.functions.at(0));
}

using Names = std::set<std::string>;

}  // namespace

TEST(PtxLiveness, AValueIsLiveFromItsDefinitionToItsLastRead) {
    auto live = liveIn(
        "  ld.param.u32 %r1, [x];\n"     // 0
        "  add.s32 %r2, %r1, 1;\n"       // 1
        "  mul.lo.s32 %r3, %r2, %r2;\n"  // 2
        "  add.s32 %r4, %r3, %r1;\n"     // 3
        "  st.param.b32 [r], %r4;\n"     // 4
        "  ret;\n");
    EXPECT_EQ(live[0], (Names{"%r1"}));
    EXPECT_EQ(live[1], (Names{"%r1", "%r2"}));
    EXPECT_EQ(live[2], (Names{"%r1", "%r3"}));
    EXPECT_EQ(live[3], (Names{"%r4"}));
    EXPECT_EQ(live[4], (Names{}));
}

TEST(PtxLiveness, LoopsBranchesAndGuardedWritesKeepWhatMayBeReadLater) {
    auto live = liveIn(
        "  ld.param.u32 %r1, [x];\n"  // 0
        "  mov.u32 %r2, 0;\n"         // 1
        "$L__loop:\n"
        "  add.s32 %r2, %r2, %r1;\n"      // 2
        "  setp.lt.s32 %p1, %r2, 100;\n"  // 3
        "  @%p1 mov.u32 %r5, 7;\n"        // 4: guarded: %r5's old value may survive
        "  @%p1 bra $L__loop;\n"          // 5
        "  add.s32 %r6, %r2, %r5;\n"      // 6
        "  st.param.b32 [r], %r6;\n"      // 7
        "  ret;\n");
    EXPECT_EQ(live[1], (Names{"%r1", "%r2", "%r5"}));  // %r5 is read after the loop, never surely written
    EXPECT_EQ(live[3], (Names{"%r1", "%r2", "%p1", "%r5"}));
    EXPECT_EQ(live[5], (Names{"%r1", "%r2", "%r5"}));
    EXPECT_EQ(live[6], (Names{"%r6"}));
}
