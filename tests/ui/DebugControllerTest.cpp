// The debugger without a window: a document held here, the controller's signals counted, its snapshots read.
#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QSignalSpy>

#include "qgpu/ui/Condition.h"
#include "qgpu/ui/DebugController.h"

using namespace qgpu;

namespace {

const QString kExamples = QString(QGPU_SOURCE_DIR) + "/resources/examples/";

QString readText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

// The tree reduction (assembly, two warps, barriers) with its launch.
DebugSource treeReduce() {
    DebugSource s;
    s.text = readText(kExamples + "tree_reduce.qasm");
    s.fileName = "tree_reduce.qasm";
    s.launch = readText(kExamples + "tree_reduce.json");
    return s;
}

struct Debugger : ::testing::Test {
    DebugSource source = treeReduce();
    DebugController debugger;
    QSignalSpy builtSpy{&debugger, &DebugController::built};
    QSignalSpy movedSpy{&debugger, &DebugController::moved};
    QSignalSpy runSpy{&debugger, &DebugController::runStateChanged};
    void SetUp() override {
        debugger.setDocument([this] { return source; });
        ASSERT_TRUE(debugger.build()) << debugger.status().toStdString();
    }
};

}  // namespace

TEST_F(Debugger, ABuildLoadsTheDocumentAndEveryMoveGivesANewSnapshot) {
    ASSERT_EQ(builtSpy.count(), 1);
    EXPECT_TRUE(builtSpy.at(0).at(0).toBool());
    std::shared_ptr<const DebugSnapshot> start = debugger.snapshot();
    EXPECT_TRUE(start->loaded);
    EXPECT_EQ(start->position, 0);
    EXPECT_EQ(start->backend, "reference");
    EXPECT_GT(debugger.lastBuild().program.blocks.size(), 3u);
    debugger.step();
    debugger.step();
    std::shared_ptr<const DebugSnapshot> now = debugger.snapshot();
    EXPECT_EQ(now->position, 2);
    ASSERT_TRUE(now->last());
    EXPECT_EQ(now->last()->step, 1);
    EXPECT_EQ(start->position, 0) << "a snapshot never changes once made";
    EXPECT_EQ(movedSpy.count(), 3);  // the build's, then one a step
    debugger.stepBack();
    EXPECT_EQ(debugger.snapshot()->position, 1);
    EXPECT_EQ(debugger.snapshot()->history->size(), 2u) << "the step ahead stays recorded";
}

TEST_F(Debugger, ARunGoesOnAfterItReturnsAndEndsWithTheVerdict) {
    debugger.run();
    debugger.waitIdle();
    ASSERT_GE(runSpy.count(), 2);
    EXPECT_TRUE(runSpy.first().at(0).toBool());
    EXPECT_FALSE(runSpy.last().at(0).toBool());
    std::shared_ptr<const DebugSnapshot> end = debugger.snapshot();
    EXPECT_EQ(end->stop, StopReason::Finished);
    EXPECT_EQ(end->state.run, RunState::Finished);
    EXPECT_TRUE(debugger.status().contains("Every expected array matches")) << debugger.status().toStdString();
    debugger.reset();
    EXPECT_EQ(debugger.snapshot()->position, 0);
    EXPECT_EQ(debugger.snapshot()->stop, StopReason::AtStart);
}

TEST_F(Debugger, AnEditedDocumentIsBuiltAgainBeforeTheNextMove) {
    source.launch.replace("[31]", "[30]");
    debugger.run();
    debugger.waitIdle();
    EXPECT_EQ(builtSpy.count(), 2);
    EXPECT_TRUE(debugger.status().contains("NOT AS EXPECTED: out[0] = 31, expected 30"))
        << debugger.status().toStdString();
    EXPECT_TRUE(debugger.status().contains("built again first")) << debugger.status().toStdString();
}

TEST_F(Debugger, AFailedBuildSaysWhereAndLeavesNothingToRun) {
    source.text.replace("sreg r1, tid.x", "sreg r1, tid.q");
    EXPECT_FALSE(debugger.build());
    EXPECT_FALSE(builtSpy.last().at(0).toBool());
    ASSERT_FALSE(debugger.lastBuild().diagnostics.empty());
    EXPECT_GT(debugger.lastBuild().diagnostics.front().line, 0);
    EXPECT_FALSE(debugger.snapshot()->loaded);
    EXPECT_TRUE(debugger.lastBuild().program.blocks.empty());
}

TEST_F(Debugger, BreakpointsGoToTheNextLineWithCodeAndStopARun) {
    QSignalSpy marks(&debugger, &DebugController::breakpointsChanged);
    int comment = 1;  // the file's first line: a comment
    QString moved = debugger.toggleBreakpoint(comment);
    EXPECT_TRUE(moved.contains("the next line with code")) << moved.toStdString();
    ASSERT_EQ(debugger.breakpoints().size(), 1u);
    int line = debugger.breakpoints().begin()->first;
    EXPECT_GT(line, comment);
    EXPECT_EQ(marks.count(), 1);
    debugger.run();
    debugger.waitIdle();
    EXPECT_EQ(debugger.snapshot()->stop, StopReason::Breakpoint);
    EXPECT_TRUE(debugger.toggleBreakpoint(line).isEmpty());
    EXPECT_TRUE(debugger.breakpoints().empty());
}

TEST_F(Debugger, WithOneBackendThereIsNothingToCompare) {
    QSignalSpy compared(&debugger, &DebugController::compared);
    EXPECT_FALSE(debugger.compareBackends());
    EXPECT_TRUE(debugger.status().contains("nothing to compare"));
    EXPECT_EQ(compared.count(), 0);
}

TEST_F(Debugger, TwoBackendsCompareStepByStep) {
    debugger.addBackend("second reference", [] { return makeReferenceSession(); });
    QSignalSpy compared(&debugger, &DebugController::compared);
    ASSERT_TRUE(debugger.compareBackends());
    debugger.waitIdle();
    ASSERT_EQ(compared.count(), 1);
    auto c = compared.first().at(0).value<BackendComparison>();
    EXPECT_EQ(c.divergence.step, -1);
    EXPECT_TRUE(c.verdict().front().contains("the same machine after every one of"))
        << c.verdict().front().toStdString();
}

TEST(Condition, ReadsCAsWrittenWithItsPrecedence) {
    NameLookup names = [](const std::string& n) -> std::optional<int64_t> {
        if (n == "threadIdx.x") return 3;
        if (n == "i") return 7;
        return std::nullopt;
    };
    EXPECT_TRUE(evaluateCondition("threadIdx.x == 3 && i > 5", names).holds);
    EXPECT_FALSE(evaluateCondition("threadIdx.x == 3 && i > 7", names).holds);
    EXPECT_TRUE(evaluateCondition("i - 2 * 3 == 1 || 0", names).holds);
    EXPECT_TRUE(evaluateCondition("!(i % 2 == 0) && -i < 0", names).holds);
    EXPECT_TRUE(evaluateCondition("i <= 7 && i >= 7 && i != 6", names).holds);
    EXPECT_EQ(evaluateCondition("q > 1", names).error.rfind("column 1: 'q' is not known here", 0), 0u);
    EXPECT_EQ(evaluateCondition("i / (threadIdx.x - 3)", names).error, "column 5: division by zero");
    EXPECT_EQ(evaluateCondition("(i > 1", names).error, "column 7: a ')' is missing");
    EXPECT_EQ(evaluateCondition("i >", names).error, "column 4: the condition ends too soon");
    EXPECT_EQ(evaluateCondition("i = 3", names).error, "column 3: '=' is not expected here");
}

TEST_F(Debugger, AConditionStopsARunOnlyForALaneWhereItHoldsAndHitsAreCounted) {
    // tree_reduce: the "level" block runs once for each warp and level; stop only in warp 1 (threads 4..7).
    int line = debugger.lastBuild().sourceLine(debugger.lastBuild().program.blockIndex("level"));
    ASSERT_GT(line, 0);
    ASSERT_TRUE(debugger.toggleBreakpoint(line).isEmpty());
    EXPECT_FALSE(debugger.setBreakpointCondition(line, "threadIdx.x >").isEmpty()) << "a condition cut short";
    EXPECT_TRUE(debugger.setBreakpointCondition(line, "threadIdx.x >= 4").isEmpty());
    debugger.run();
    debugger.waitIdle();
    std::shared_ptr<const DebugSnapshot> s = debugger.snapshot();
    ASSERT_EQ(s->stop, StopReason::Breakpoint);
    EXPECT_EQ(s->next.warp, 1) << "warp 0 runs the line first, with threads 0..3";
    EXPECT_EQ(debugger.breakpoints().at(line).hits, 1);
    debugger.run();
    debugger.waitIdle();
    EXPECT_EQ(debugger.snapshot()->next.warp, 1);
    EXPECT_EQ(debugger.breakpoints().at(line).hits, 2);
    // Turned off, it stops nothing.
    debugger.setBreakpointEnabled(line, false);
    debugger.run();
    debugger.waitIdle();
    EXPECT_EQ(debugger.snapshot()->stop, StopReason::Finished);
}

TEST_F(Debugger, AConditionThatCannotBeEvaluatedStopsTheRunAndSaysWhy) {
    int line = debugger.lastBuild().sourceLine(debugger.lastBuild().program.blockIndex("level"));
    debugger.toggleBreakpoint(line);
    ASSERT_TRUE(debugger.setBreakpointCondition(line, "count > 1").isEmpty());  // no debug build has it
    debugger.run();
    debugger.waitIdle();
    EXPECT_EQ(debugger.snapshot()->stop, StopReason::Breakpoint);
    EXPECT_TRUE(debugger.status().contains("'count' is not known here")) << debugger.status().toStdString();
}

TEST_F(Debugger, ADataBreakpointStopsARunAfterTheStepThatChangesTheWord) {
    const ArrayPlacement* in = debugger.lastBuild().map.find("in");
    ASSERT_TRUE(in);
    // Nothing writes `in`: the run goes to the end. `out` is written once, by the last steps.
    debugger.setDataBreakpoint(in->base);
    debugger.run();
    debugger.waitIdle();
    EXPECT_EQ(debugger.snapshot()->stop, StopReason::Finished);
    debugger.reset();
    int out = debugger.lastBuild().map.find("out")->base;
    debugger.setDataBreakpoint(out);
    debugger.run();
    debugger.waitIdle();
    std::shared_ptr<const DebugSnapshot> s = debugger.snapshot();
    ASSERT_EQ(s->stop, StopReason::Breakpoint) << debugger.status().toStdString();
    EXPECT_TRUE(debugger.status().contains(QString("global word %1 changed from 0 to 31").arg(out)))
        << debugger.status().toStdString();
    bool wrote = false;
    for (const MemWrite& w : s->last()->memWrites) wrote |= w.addr == out;
    EXPECT_TRUE(wrote) << "it stops right after the step that wrote it";
    ASSERT_TRUE(debugger.build());
    EXPECT_EQ(debugger.dataBreakpoint(), -1) << "a build clears it";
}

// A run saved, then opened as a backend of its own: the same machines both ways, with the reference
// backend nowhere involved; compared with itself it agrees, and a recording with one value changed is
// found at that step.
TEST_F(Debugger, ASavedRunOpensAsABackendAndComparesStepByStep) {
    EXPECT_FALSE(debugger.saveRun("/tmp/never.qrun")) << "nothing has run yet";
    EXPECT_TRUE(debugger.status().contains("no run to save")) << debugger.status().toStdString();
    debugger.run();
    debugger.waitIdle();
    std::shared_ptr<const DebugSnapshot> end = debugger.snapshot();
    QString path = QDir::temp().filePath("qgpu-debugger-test.qrun");
    ASSERT_TRUE(debugger.saveRun(path)) << debugger.status().toStdString();
    auto run = std::make_shared<const RecordedRun>(loadRecordedRun(path.toStdString()));
    EXPECT_EQ(run->sourceName, "tree_reduce.qasm");
    EXPECT_EQ(int(run->steps.size()), end->position);

    ASSERT_TRUE(debugger.openRun(run, "tree.qrun")) << debugger.status().toStdString();
    EXPECT_EQ(debugger.backend(), "recorded: tree.qrun");
    EXPECT_TRUE(debugger.backends().contains("recorded: tree.qrun"));
    debugger.run();
    debugger.waitIdle();
    EXPECT_EQ(debugger.snapshot()->position, end->position);
    EXPECT_EQ(debugger.snapshot()->state.global, end->state.global);
    EXPECT_TRUE(debugger.status().contains("Every expected array matches")) << debugger.status().toStdString();
    debugger.stepBack();
    EXPECT_EQ(debugger.snapshot()->position, end->position - 1);
    ASSERT_TRUE(debugger.saveRun(path));  // saved again from the recording: still the reference's run
    EXPECT_EQ(loadRecordedRun(path.toStdString()).backend, "reference");

    QSignalSpy comparedSpy(&debugger, &DebugController::compared);
    ASSERT_TRUE(debugger.compareWithRun(run));
    debugger.waitIdle();
    ASSERT_EQ(comparedSpy.count(), 1);
    auto same = comparedSpy.at(0).at(0).value<BackendComparison>();
    EXPECT_EQ(same.divergence.step, -1) << same.verdict().join("\n").toStdString();

    RecordedRun changed = *run;
    int at = 0;
    while (changed.steps[size_t(at)].regWrites.empty()) ++at;
    changed.steps[size_t(at)].regWrites[0].after ^= 1;
    ASSERT_TRUE(debugger.compareWithRun(std::make_shared<const RecordedRun>(changed)));
    debugger.waitIdle();
    ASSERT_EQ(comparedSpy.count(), 2);
    auto differs = comparedSpy.at(1).at(0).value<BackendComparison>();
    EXPECT_EQ(differs.divergence.step, at + 1) << differs.verdict().join("\n").toStdString();

    source.launch.replace("[3, 1, 4", "[4, 1, 4");  // other arguments: the recording does not fit them
    debugger.step();
    EXPECT_TRUE(debugger.status().contains("not those the run was recorded with")) << debugger.status().toStdString();
}

TEST_F(Debugger, ATraceIsMadeOnTheEngineThreadWithoutARunAndABuildForgetsIt) {
    QSignalSpy tracedSpy(&debugger, &DebugController::traced);
    debugger.step();
    debugger.requestTrace();
    EXPECT_FALSE(debugger.running()) << "a trace is not a run: moves and runs may start";
    EXPECT_EQ(runSpy.count(), 0);
    debugger.waitIdle();
    ASSERT_EQ(tracedSpy.count(), 1);
    ASSERT_TRUE(debugger.trace());
    EXPECT_TRUE(debugger.trace()->layers.empty()) << "the interpreter runs no model";
    // A move right after the request stops the trace or waits for it, and then takes its step.
    debugger.requestTrace();
    debugger.step();
    debugger.waitIdle();
    EXPECT_EQ(debugger.snapshot()->position, 2);
    // A new build forgets the trace of the old program.
    source.text += "\n";
    ASSERT_TRUE(debugger.build());
    EXPECT_FALSE(debugger.trace());
}
