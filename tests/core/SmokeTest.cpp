#include <gtest/gtest.h>

#include "qgpu/core/Assembler.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/Trace.h"

using namespace qgpu;

TEST(Smoke, DotProduct) {
    Program p = assemble(R"(
entry:
    sreg r1, tid.x
    ld.global r2, [r1 + $a]
    ld.global r3, [r1 + $b]
    mul r4, r2, r3
    jmp acc
acc:
    atom.global r5, [r0 + $out], r4
    exit
)");
    LaunchSpec l = parseLaunchSpec(
        R"({"block": 3, "args": [{"name":"a","array":[1,2,3]},{"name":"b","array":[4,5,6]},{"name":"out","zeros":1}]})");
    LinkedLaunch linked = linkLaunch(p, l);
    Interpreter in(linked.program, l);
    MachineState s = runToCompletion(in);
    EXPECT_EQ(readArray(s, *linked.map.find("out")), std::vector<int64_t>{32});
}
