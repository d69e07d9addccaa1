// The one check that a model's run is the interpreter's (compareLaunch, teacherForcedCheck): it finds a
// difference in each part it compares, says where, and passes the model's own runs.
#include <gtest/gtest.h>

#include "GpuTestSupport.h"
#include "qgpu/runtime/LaunchCheck.h"

using namespace qgpu;
using qgpu::testing::gpuModel;
using qgpu::testing::loadSuiteKernel;

namespace {

struct Checked {
    gpu::ReferenceLaunch ref;
    GpuLaunch run;  // the interpreter's run, dressed as the model's
};

Checked sharedHistogram() {
    auto [launch, map, program] = loadSuiteKernel("shared_histogram");
    Checked c;
    c.ref = gpu::referenceLaunch(program, launch);
    c.run.fed = gpu::loadTokens(program, launch.grid, launch.block, c.ref.initialGlobal);
    c.run.written = c.ref.stream;
    c.run.ended = true;
    c.run.registers = c.ref.registers;
    c.run.global = c.ref.global;
    c.run.shared = c.ref.shared;
    return c;
}

// The index of the first VAL record at or after `from` (its value is part of its id).
long firstValue(const std::vector<gpu::Token>& stream, size_t from) {
    for (size_t i = from; i < stream.size(); ++i)
        if (stream[i].kind == gpu::Kind::Val) return long(i);
    return -1;
}

}  // namespace

TEST(LaunchCheck, TheInterpretersOwnRunIsExact) {
    Checked c = sharedHistogram();
    LaunchCheck check = compareLaunch(c.run, c.ref);
    EXPECT_TRUE(check.exact()) << check.what;
    EXPECT_EQ(check.what, "");
}

TEST(LaunchCheck, EachPartThatDiffersIsNamedWithWhere) {
    Checked records = sharedHistogram();
    long at = firstValue(records.ref.stream, 5);
    ASSERT_GE(at, 5);
    records.run.written[size_t(at)].value ^= 1;
    LaunchCheck r = compareLaunch(records.run, records.ref);
    EXPECT_EQ(r.differs, LaunchCheck::Part::Records);
    EXPECT_EQ(r.record, at);
    EXPECT_NE(r.what.find("the stream differs at record " + std::to_string(at)), std::string::npos) << r.what;

    Checked shorter = sharedHistogram();
    shorter.run.written.pop_back();
    EXPECT_EQ(compareLaunch(shorter.run, shorter.ref).differs, LaunchCheck::Part::Records);

    Checked regs = sharedHistogram();
    regs.run.registers[3][7] += 1;
    LaunchCheck g = compareLaunch(regs.run, regs.ref);
    EXPECT_EQ(g.differs, LaunchCheck::Part::Registers);
    EXPECT_EQ(g.thread, 3);
    EXPECT_NE(g.what.find("thread 3's r7 is "), std::string::npos) << g.what;

    Checked missing = sharedHistogram();
    missing.run.registers.pop_back();  // a short read must not index past the end
    EXPECT_EQ(compareLaunch(missing.run, missing.ref).differs, LaunchCheck::Part::Registers);

    Checked global = sharedHistogram();
    global.run.global[2] += 1;
    LaunchCheck m = compareLaunch(global.run, global.ref);
    EXPECT_EQ(m.differs, LaunchCheck::Part::GlobalMemory);
    EXPECT_NE(m.what.find("global memory word 2 is "), std::string::npos) << m.what;

    Checked shared = sharedHistogram();
    ASSERT_GE(shared.run.shared.size(), 2u);
    shared.run.shared[1][0] += 1;
    LaunchCheck s = compareLaunch(shared.run, shared.ref);
    EXPECT_EQ(s.differs, LaunchCheck::Part::SharedMemory);
    EXPECT_NE(s.what.find("thread block 1's shared memory word 0"), std::string::npos) << s.what;
}

TEST(LaunchCheck, TeacherForcingFindsTheRecordTheModelDoesNotPredict) {
    Checked c = sharedHistogram();
    const GpuModel& model = gpuModel(Engine::Sparse);
    LaunchCheck exact = teacherForcedCheck(model, Engine::Sparse, c.run, c.ref);
    EXPECT_TRUE(exact.exact()) << exact.what;
    long at = firstValue(c.ref.stream, 9);
    ASSERT_GE(at, 9);
    c.ref.stream[size_t(at)].value ^= 1;  // the interpreter's stream, altered: the model predicts the true record
    LaunchCheck altered = teacherForcedCheck(model, Engine::Sparse, c.run, c.ref);
    EXPECT_EQ(altered.differs, LaunchCheck::Part::TeacherForced);
    EXPECT_EQ(altered.record, at);
}
