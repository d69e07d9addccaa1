// Recorded runs: a reference run saved and opened again replays every machine both ways without
// executing, and a file that is not a run, is damaged, or was made on another kernel is refused by name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "TestUtil.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/RecordedRun.h"

using namespace qgpu;

namespace {

const char* const kKernel = test::kSessionKernel;
const char* const kLaunch = test::kSessionLaunch;

struct Recorded {
    Program program = assemble(kKernel);
    LaunchSpec launch = parseLaunchSpec(kLaunch);
    std::vector<MachineState> machines;  // before any step and after each
    RecordedRun run;
};

Recorded recordReference() {
    Recorded r;
    auto s = makeReferenceSession();
    s->load(r.program, r.launch);
    r.machines.push_back(s->snapshot());
    while (s->step() == StopReason::Step) r.machines.push_back(s->snapshot());
    r.machines.push_back(s->snapshot());
    r.run.source = kKernel;
    r.run.sourceName = "k.qasm";
    r.run.launch = kLaunch;
    r.run.backend = s->backendName();
    recordMachine(r.run, r.program, r.launch);
    r.run.steps = s->history();
    return r;
}

void expectSame(const MachineState& a, const MachineState& b, int step) {
    SCOPED_TRACE("after step " + std::to_string(step));
    ASSERT_EQ(a.threads.size(), b.threads.size());
    for (size_t t = 0; t < a.threads.size(); ++t) {
        EXPECT_EQ(a.threads[t].regs, b.threads[t].regs) << "thread " << t;
        EXPECT_EQ(a.threads[t].pc, b.threads[t].pc) << "thread " << t;
        EXPECT_EQ(a.threads[t].status, b.threads[t].status) << "thread " << t;
    }
    EXPECT_EQ(a.global, b.global);
    EXPECT_EQ(a.shared, b.shared);
    EXPECT_EQ(a.run, b.run);
}

std::filesystem::path tempFile(const std::string& name) {
    std::filesystem::path dir = std::filesystem::temp_directory_path() / "qgpu-recorded-run-test";
    std::filesystem::create_directories(dir);
    return dir / name;
}

std::string loadError(const std::string& text) {
    std::filesystem::path p = tempFile("bad.qrun");
    writeTextFile(p, text);
    try {
        loadRecordedRun(p);
    } catch (const DiagnosticError& e) {
        return e.what();
    }
    return "(no error)";
}

}  // namespace

TEST(RecordedRun, SavedAndOpenedItReplaysEveryMachineBothWaysWithoutExecuting) {
    Recorded r = recordReference();
    std::filesystem::path p = tempFile("k.qrun");
    saveRecordedRun(r.run, p);
    EXPECT_FALSE(std::filesystem::exists(p.string() + ".partial"));
    auto run = std::make_shared<const RecordedRun>(loadRecordedRun(p));
    EXPECT_EQ(run->source, kKernel);
    EXPECT_EQ(run->backend, "reference");
    EXPECT_EQ(run->steps.size(), r.run.steps.size());
    auto s = makeRecordedSession(run);
    EXPECT_EQ(s->backendName(), "recorded reference run");
    s->load(r.program, r.launch);
    expectSame(s->snapshot(), r.machines[0], 0);
    int steps = int(run->steps.size());
    for (int i = 1; i <= steps; ++i) {
        StopReason got = s->step();
        EXPECT_EQ(got, i < steps ? StopReason::Step : StopReason::Finished);
        expectSame(s->snapshot(), r.machines[size_t(i)], i);
    }
    EXPECT_EQ(s->step(), StopReason::Finished);  // nothing past the recording
    EXPECT_EQ(s->peek().warp, -1);
    for (int i = steps - 1; i >= 0; --i) {
        s->stepBack();
        expectSame(s->snapshot(), r.machines[size_t(i)], i);
    }
    EXPECT_EQ(s->stepBack(), StopReason::AtStart);
}

TEST(RecordedRun, ARecordingThatStopsEarlyEndsWhereItStops) {
    Recorded r = recordReference();
    r.run.steps.resize(3);
    auto s = makeRecordedSession(std::make_shared<const RecordedRun>(r.run));
    s->load(r.program, r.launch);
    EXPECT_EQ(s->run(), StopReason::StepLimit);
    EXPECT_EQ(s->position(), 3);
    expectSame(s->snapshot(), r.machines[3], 3);
}

TEST(RecordedRun, AnotherKernelOrADamagedStepIsRefusedOnLoad) {
    Recorded r = recordReference();
    auto refusal = [&](const RecordedRun& run, const Program& program) -> std::string {
        try {
            makeRecordedSession(std::make_shared<const RecordedRun>(run))->load(program, r.launch);
        } catch (const DiagnosticError& e) {
            return e.what();
        }
        return "(loaded)";
    };
    Program edited =
        assemble(std::string(kKernel).replace(std::string(kKernel).find("add r3, r3, 1"), 13, "add r3, r3, 2"));
    EXPECT_NE(refusal(r.run, edited).find("not the one the run was recorded on"), std::string::npos);
    RecordedRun otherData = r.run;
    otherData.initialGlobal[0] ^= 1;
    EXPECT_NE(refusal(otherData, r.program).find("arguments are not those"), std::string::npos);
    RecordedRun bad = r.run;
    bad.steps[2].regWrites.push_back({9999, 1, 0, 1});
    EXPECT_NE(refusal(bad, r.program).find("recorded step 2 does not fit this launch"), std::string::npos);
    bad = r.run;
    bad.steps[4].memWrites.push_back({MemSpace::Shared, 7, 0, 0, 1, 0});
    EXPECT_NE(refusal(bad, r.program).find("recorded step 4 does not fit"), std::string::npos);
    bad = r.run;
    bad.steps[1].step = 7;
    EXPECT_NE(refusal(bad, r.program).find("numbered 7"), std::string::npos);
}

TEST(RecordedRun, AFileThatIsNotARunIsRefusedWithWhatIsWrong) {
    EXPECT_NE(loadError("{\"format\": \"something else\"}").find("not a run qgpu recorded"), std::string::npos);
    EXPECT_NE(loadError("[1, 2").find("bad.qrun"), std::string::npos);
    std::filesystem::path p = tempFile("k.qrun");
    saveRecordedRun(recordReference().run, p);
    std::string text = readFile(p);
    std::string versioned = text;
    versioned.replace(versioned.find("\"version\":1"), 11, "\"version\":9");
    EXPECT_NE(loadError(versioned).find("another version of qgpu"), std::string::npos);
    std::string noSteps = text;
    noSteps.replace(noSteps.find("\"steps\""), 7, "\"stepz\"");
    EXPECT_NE(loadError(noSteps).find("\"steps\" is missing"), std::string::npos);
}

TEST(RecordedRun, AFailedSaveLeavesNoFileBehind) {
    std::filesystem::path dir = tempFile("no-such-folder") / "deeper";
    EXPECT_THROW(saveRecordedRun(recordReference().run, dir / "k.qrun"), DiagnosticError);
    EXPECT_FALSE(std::filesystem::exists(dir / "k.qrun"));
    EXPECT_FALSE(std::filesystem::exists(dir / "k.qrun.partial"));
}
