// The Results, Problems, Output, Variables, Watch, Warps, Breakpoints and History panels and the token stream's words,
// in the window.
#include <gtest/gtest.h>

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QTemporaryDir>
#include <QTableWidget>
#include <QtTest/QtTest>
#include <map>

#include "StudioTestSupport.h"
#include "qgpu/ui/BreakpointsView.h"
#include "qgpu/ui/HistoryView.h"
#include "qgpu/ui/StateViews.h"
#include "qgpu/ui/OutputView.h"
#include "qgpu/ui/ProblemsView.h"
#include "qgpu/ui/ResultsView.h"
#include "qgpu/ui/VariablesView.h"
#include "qgpu/ui/WarpsView.h"
#include "qgpu/ui/WatchView.h"
#include "qgpu/core/Assembler.h"
#include <Qsci/qsciscintilla.h>

using namespace qgpu;
using namespace qgpu::testing;

TEST(StudioResults, AFinishedLaunchShowsEachElementBesideItsExpectedValueAndTheWholeVerdict) {
    auto w = windowWithExample("tree_reduce.qasm");
    ASSERT_TRUE(w);
    w->resize(1280, 800);
    ResultsView* results = w->results();
    EXPECT_TRUE(results->verdict().startsWith("The launch has not finished (at the start)"))
        << results->verdict().toStdString();
    w->debugger().run();
    w->debugger().waitIdle();
    EXPECT_EQ(results->verdict(), "The launch finished. Every expected array matches (1 values).");
    EXPECT_TRUE(w->findChild<QDockWidget*>("Results")->isVisible());
    EXPECT_FALSE(results->visibleRegion().isEmpty()) << "a finished launch brings its results to the front";
    QTableWidget* t = results->table();
    ASSERT_EQ(t->rowCount(), 9);  // in[0..7], out[0]
    EXPECT_EQ(t->item(8, ResultsView::Element)->text(), "out[0]");
    EXPECT_EQ(t->item(8, ResultsView::Value)->text(), "31");
    EXPECT_EQ(t->item(8, ResultsView::Expected)->text(), "31");
    EXPECT_EQ(t->item(0, ResultsView::Expected)->text(), "") << "in has no expected values";
    // The verdict is a label that wraps: all of it is on screen however long it is.
    auto* label = results->findChild<QLabel*>("resultsVerdict");
    ASSERT_TRUE(label);
    EXPECT_TRUE(label->wordWrap());
}

TEST(StudioResults, MismatchesAreMarkedAndCounted) {
    auto w = windowWithExample("tree_reduce.qasm");
    ASSERT_TRUE(w);
    QString launch = w->launchEditor()->toPlainText();
    w->launchEditor()->setPlainText(launch.replace("[31]", "[7]"));
    w->debugger().run();
    w->debugger().waitIdle();
    ResultsView* results = w->results();
    EXPECT_EQ(results->mismatches(), 1);
    EXPECT_EQ(results->verdict(), "The launch finished. NOT AS EXPECTED: 1 of 1 expected values differ, marked below.");
    QTableWidget* t = results->table();
    EXPECT_EQ(t->item(8, ResultsView::Expected)->text(), "7  (differs)");
    EXPECT_NE(t->item(8, ResultsView::Value)->background(), t->item(0, ResultsView::Value)->background());
}

TEST(StudioResults, AFailedBuildEmptiesThePanel) {
    auto w = windowWithExample("tree_reduce.qasm");
    ASSERT_TRUE(w);
    w->editor()->setText("nonsense");
    EXPECT_FALSE(w->build());
    EXPECT_EQ(w->results()->table()->rowCount(), 0);
    EXPECT_TRUE(w->results()->verdict().startsWith("Nothing is loaded")) << w->results()->verdict().toStdString();
}

TEST(StudioTokens, EveryTokenFormSaysWhatItMeans) {
    EXPECT_EQ(tokenMeaning("VAL(s1,l2,k0,0x12.)"),
              "model: byte 0 of the value slot 1 writes in lane 2 is 0x12 (18), its last byte");
    EXPECT_EQ(tokenMeaning("EXEC(b3,w1,{0,2})"), "model: warp 1 runs block 3 with lanes {0,2}");
    EXPECT_EQ(tokenMeaning("EXEC(b0,w4,{})"), "model: warp 4 runs block 0 with no lanes");
    EXPECT_EQ(tokenMeaning("ROM(b2,s4,imm,0x07)"), "host: the high (imm) half of ROM word 4 of block 2 is 0x07 (7)");
    EXPECT_EQ(tokenMeaning("ROM(b40,s0,op)"),
              "host: the low (op) half of ROM word 0 of block 40 is the word just spelt in bytes");
    EXPECT_EQ(tokenMeaning("MEM(5,0x20)"), "host: global word 5 is 0x20 (32)");
    EXPECT_EQ(tokenMeaning("BYTE(k1,0xff)"), "host: byte 1 of the next ROM half word or memory word is 0xff (255)");
    EXPECT_EQ(tokenMeaning("GRID(2,1,1)"),
              "host: the launch's grid is 2 x 1 x 1; the last token fed: the launch starts");
    EXPECT_EQ(tokenMeaning("RELEASE(1)"), "model: the thread block's barrier opens; the epoch's parity becomes 1");
    EXPECT_EQ(tokenMeaning("END"), "model: the launch is over");
    EXPECT_TRUE(tokenMeaning("FAULT(bar,{1})").contains("divergent barrier"));
    EXPECT_EQ(tokenMeaning("hello world"), "");
}

namespace {

// A kernel of the test's own, as a file in `dir` (the window builds from a file's name).
QString kernelFile(const QTemporaryDir& dir, const QString& name, const char* source) {
    QString path = dir.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly)) f.write(source);
    return path;
}

// Shows `w` at 1280x800 and opens the test's kernel `name` over one block of four threads: `a` holds the
// array `a` (JSON) and `out` four zeros. False (the status says why) when it does not build.
bool openFourThreads(MainWindow& w, const QTemporaryDir& dir, const QString& name, const char* source, const char* a) {
    w.resize(1280, 800);
    w.show();
    return w.openProgram(
        kernelFile(dir, name, source),
        QString(R"({"block": 4, "args": [{"name": "a", "array": %1}, {"name": "out", "zeros": 4}]})").arg(a));
}

// A click on row `row` of a panel of step rows goes to its step, and the editor to the (0-based) line; back at
// the start, nothing has happened yet.
void expectAClickGoesToItsStepAndLine(MainWindow& w, QTableWidget* t, int row, int editorLine) {
    int step = t->item(row, StepRowsView::Step)->text().toInt();
    emit t->cellClicked(row, StepRowsView::Text);
    w.debugger().waitIdle();
    EXPECT_EQ(w.debugger().snapshot()->position, step + 1);
    int line, column;
    w.editor()->getCursorPosition(&line, &column);
    EXPECT_EQ(line, editorLine);
    w.debugger().reset();
    EXPECT_EQ(t->rowCount(), 0);
}

}  // namespace

TEST(StudioProblems, EveryWarningIsListedWithItsStepThreadAndLine) {
    QTemporaryDir dir;
    MainWindow w;
    ASSERT_TRUE(openFourThreads(w, dir, "divide.cu",
                                "// Thread 1 divides by zero.\n"
                                "__global__ void divide(const int* a, int* out) {\n"
                                "    int i = threadIdx.x;\n"
                                "    out[i] = a[i] / (i - 1);\n"
                                "}\n",
                                "[8, 9, 10, 11]"))
        << w.statusText().toStdString();
    ProblemsView* problems = w.problems();
    EXPECT_EQ(problems->summary(), "No problems in the 0 steps run so far.");
    w.debugger().run();
    w.debugger().waitIdle();
    QTableWidget* t = problems->table();
    ASSERT_EQ(t->rowCount(), 1) << problems->summary().toStdString();
    EXPECT_EQ(t->item(0, ProblemsView::Thread)->text(), "block (0,0,0) thread (1,0,0)");
    EXPECT_EQ(t->item(0, ProblemsView::Line)->text(), "4");
    EXPECT_TRUE(t->item(0, ProblemsView::Text)->text().contains("division by zero"))
        << t->item(0, ProblemsView::Text)->text().toStdString();
    expectAClickGoesToItsStepAndLine(w, t, 0, 3);  // the step that warned
}

TEST(StudioProblems, AReadPastAnArraysEndIntoTheNextArrayIsListed) {
    // a holds four ints and out follows it in global memory: thread 3 reads a[4], which is out[0].
    QTemporaryDir dir;
    MainWindow w;
    ASSERT_TRUE(openFourThreads(w, dir, "neighbour.cu",
                                "__global__ void neighbour(const int* a, int* out) {\n"
                                "    int i = threadIdx.x;\n"
                                "    out[i] = a[i] + a[i + 1];\n"
                                "}\n",
                                "[8, 9, 10, 11]"))
        << w.statusText().toStdString();
    w.debugger().run();
    w.debugger().waitIdle();
    QTableWidget* t = w.problems()->table();
    ASSERT_EQ(t->rowCount(), 1) << w.problems()->summary().toStdString();
    EXPECT_EQ(t->item(0, ProblemsView::Thread)->text(), "block (0,0,0) thread (3,0,0)");
    EXPECT_EQ(t->item(0, ProblemsView::Line)->text(), "3");
    EXPECT_EQ(t->item(0, ProblemsView::Text)->text(),
              "out-of-bounds read of a[4]: a has 4 elements, and word 5 is out[0]");
}

TEST(StudioOutput, PrintfTextsShowWithTheirStepThreadAndLineAndAClickGoesThere) {
    QTemporaryDir dir;
    MainWindow w;
    ASSERT_TRUE(openFourThreads(w, dir, "trace.cu",
                                "__global__ void trace(const int* a, int* out) {\n"
                                "    int i = threadIdx.x;\n"
                                "    if (i % 2) printf(\"thread %d: a = %d\\n\", i, a[i]);\n"
                                "    out[i] = a[i];\n"
                                "}\n",
                                "[8, 9, 10, 11]"))
        << w.statusText().toStdString();
    OutputView* output = w.output();
    QTableWidget* t = output->table();
    EXPECT_EQ(t->rowCount(), 0);
    w.debugger().run();
    w.debugger().waitIdle();
    ASSERT_EQ(t->rowCount(), 2) << output->summary().toStdString();
    EXPECT_EQ(t->item(0, OutputView::Text)->text(), "thread 1: a = 9");
    EXPECT_EQ(t->item(1, OutputView::Text)->text(), "thread 3: a = 11");
    EXPECT_EQ(t->item(1, OutputView::Thread)->text(), "block (0,0,0) thread (3,0,0)");
    EXPECT_EQ(t->item(1, OutputView::Line)->text(), "3");
    EXPECT_TRUE(output->summary().startsWith("2 printf calls")) << output->summary().toStdString();
    expectAClickGoesToItsStepAndLine(w, t, 1, 2);  // the step that printed
}

TEST(StudioOutput, AFailedAssertionIsMarkedAndTheVerdictSaysTheLaunchFails) {
    QTemporaryDir dir;
    MainWindow w;
    ASSERT_TRUE(openFourThreads(w, dir, "positive.cu",
                                "__global__ void positive(const int* a, int* out) {\n"
                                "    assert(a[threadIdx.x] > 0);\n"
                                "    out[threadIdx.x] = a[threadIdx.x];\n"
                                "}\n",
                                "[8, -9, 10, 11]"))
        << w.statusText().toStdString();
    w.debugger().run();
    w.debugger().waitIdle();
    QTableWidget* t = w.output()->table();
    ASSERT_EQ(t->rowCount(), 1) << w.output()->summary().toStdString();
    EXPECT_TRUE(t->item(0, OutputView::Text)->text().endsWith("thread: [1,0,0] Assertion `a[threadIdx.x] > 0` failed."))
        << t->item(0, OutputView::Text)->text().toStdString();
    EXPECT_NE(t->item(0, OutputView::Text)->background(), QBrush());
    EXPECT_TRUE(w.output()->summary().startsWith("A device assertion failed")) << w.output()->summary().toStdString();
    EXPECT_TRUE(w.results()->verdict().contains("A DEVICE ASSERTION FAILED")) << w.results()->verdict().toStdString();
    EXPECT_TRUE(w.statusText().contains("A DEVICE ASSERTION FAILED")) << w.statusText().toStdString();
    // The compiler's own arrays (printf's buffer, the message's strings) are not results.
    for (int r = 0; r < w.results()->table()->rowCount(); ++r)
        EXPECT_TRUE(w.results()->table()->item(r, 0)->text().startsWith("a[") ||
                    w.results()->table()->item(r, 0)->text().startsWith("out["))
            << w.results()->table()->item(r, 0)->text().toStdString();
}

TEST(StudioVariables, ADebugBuildShowsEachThreadsVariablesInTheirTypes) {
    QTemporaryDir dir;
    QString path = kernelFile(dir, "scale.cu",
                              "__global__ void scale(const int* a, int* out, int k) {\n"
                              "    int i = threadIdx.x;\n"
                              "    int v = a[i] * k;\n"
                              "    out[i] = v;\n"
                              "}\n");
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    QString launch = R"({"block": 4, "args": [{"name": "a", "array": [1, 2, 3, 4]}, {"name": "out", "zeros": 4},
                         {"name": "k", "scalar": 10}]})";
    ASSERT_TRUE(w.openProgram(path, launch)) << w.statusText().toStdString();
    VariablesView* vars = w.variables();
    EXPECT_TRUE(vars->note().contains("Debug build (-O0 -g)")) << vars->note().toStdString();
    auto* debugBuild = w.findChild<QAction*>("debugBuildAction");
    ASSERT_TRUE(debugBuild);
    debugBuild->trigger();
    ASSERT_TRUE(w.debugger().snapshot()->loaded) << w.statusText().toStdString();
    ASSERT_FALSE(w.debugger().lastBuild().program.variables.empty());
    // Machine steps until thread 2 stands at a block that starts with line 4's code: line 3 has run.
    vars->setThread(2);
    for (int k = 0; k < 100 && !vars->note().contains("at line 4"); ++k) w.debugger().step();
    EXPECT_TRUE(vars->note().startsWith("block (0,0,0) thread (2,0,0), at line 4")) << vars->note().toStdString();
    std::map<QString, QString> shown;
    for (int r = 0; r < vars->table()->rowCount(); ++r)
        shown[vars->table()->item(r, VariablesView::Name)->text()] =
            vars->table()->item(r, VariablesView::Value)->text();
    EXPECT_EQ(shown["i"], "2");
    EXPECT_EQ(shown["v"], "30");
    EXPECT_EQ(shown["k"], "10");
    EXPECT_EQ(shown["out"], "&out[0]");
    // The editor's hover: the variable in every thread where it is in scope.
    QString tip = vars->valuesOf("v");
    EXPECT_TRUE(tip.contains("block (0,0,0) thread (3,0,0): 40")) << tip.toStdString();
    EXPECT_EQ(vars->valuesOf("nothing"), "");
}

// Focus as cuda-gdb takes it: by coordinates or indices, the block kept when only the thread is named,
// and a thread outside the launch refused with its shape.
TEST(StudioVariables, AThreadIsFocusedByItsBlockAndThreadCoordinates) {
    QTemporaryDir dir;
    QString path = kernelFile(dir, "copy2d.cu",
                              "__global__ void copy2d(const int* a, int* out) {\n"
                              "    int i = blockIdx.x * 4 + threadIdx.y * 2 + threadIdx.x;\n"
                              "    out[i] = a[i];\n"
                              "}\n");
    MainWindow w;
    QString launch = R"({"grid": 2, "block": [2, 2], "args": [{"name": "a", "array": [1, 2, 3, 4, 5, 6, 7, 8]},
                         {"name": "out", "zeros": 8}]})";
    ASSERT_TRUE(w.openProgram(path, launch)) << w.statusText().toStdString();
    VariablesView* vars = w.variables();
    EXPECT_TRUE(vars->focus("block (1,0,0) thread (1,1,0)")) << vars->note().toStdString();
    EXPECT_EQ(vars->thread(), 7);
    EXPECT_TRUE(vars->focus("thread (0, 1)"));  // in the same block
    EXPECT_EQ(vars->thread(), 6);
    EXPECT_TRUE(vars->focus("block 0 thread 3"));
    EXPECT_EQ(vars->thread(), 3);
    EXPECT_TRUE(vars->focus("BLOCK 1"));
    EXPECT_EQ(vars->thread(), 4);
    EXPECT_FALSE(vars->focus("block (2,0,0) thread (0,0,0)"));
    EXPECT_EQ(vars->note(), "Focus: block (2,0,0) is outside the launch's shape (2,1,1).");
    EXPECT_EQ(vars->thread(), 4);
    EXPECT_FALSE(vars->focus("thread 4"));
    EXPECT_TRUE(vars->note().contains("thread 4 is outside 0..3")) << vars->note().toStdString();
    EXPECT_FALSE(vars->focus("warp 2"));
    EXPECT_TRUE(vars->note().contains("'warp' is not part of a focus")) << vars->note().toStdString();
    EXPECT_FALSE(vars->focus("thread (x,1)"));
    EXPECT_TRUE(vars->note().contains("not a thread index")) << vars->note().toStdString();
}

TEST(StudioWarps, EachWarpShowsItsLineNextLanesAndStateAndTheEditorMarksDivergedLanes) {
    auto w = windowWithExample("branches.qasm");
    ASSERT_TRUE(w);
    QTableWidget* warps = w->warps()->table();
    ASSERT_EQ(warps->rowCount(), 1);
    EXPECT_EQ(warps->item(0, WarpsView::Block)->text(), "block (0,0,0)");
    EXPECT_EQ(warps->item(0, WarpsView::Threads)->text(), "0..3");
    EXPECT_EQ(warps->item(0, WarpsView::Lanes)->text(), "1111");
    EXPECT_EQ(warps->item(0, WarpsView::State)->text(), "runs next");
    EXPECT_TRUE(warps->item(0, WarpsView::State)->font().bold());
    w->debugger().step();  // the branch: lanes 0 and 1 go low, 2 and 3 high
    EXPECT_EQ(warps->item(0, WarpsView::Lanes)->text(), "1100");
    EXPECT_EQ(warps->item(0, WarpsView::State)->text(), "runs next, diverged over 2 lines");
    Program p = assemble(w->editor()->text().toStdString());
    int high = p.blocks[size_t(p.blockIndex("high"))].bodyLocs.front().line;
    EXPECT_TRUE(w->editor()->markersAtLine(high - 1) & (1 << 3)) << "lanes 2 and 3 stand at line " << high;
    w->debugger().run();
    w->debugger().waitIdle();
    EXPECT_EQ(warps->item(0, WarpsView::State)->text(), "exited");
}

TEST(StudioBreakpoints, TheListTurnsThemOffAndOnEditsConditionsAndTheDocumentKeepsThem) {
    QTemporaryDir dir;
    QString path = dir.filePath("tree_reduce.qasm");
    ASSERT_TRUE(QFile::copy(kExamples + "tree_reduce.qasm", path));
    ASSERT_TRUE(QFile::copy(kExamples + "tree_reduce.json", dir.filePath("tree_reduce.json")));
    int line = 0;
    {
        MainWindow w;
        w.show();
        ASSERT_TRUE(w.openProgram(path));
        line = w.debugger().lastBuild().sourceLine(w.debugger().lastBuild().program.blockIndex("level"));
        w.toggleBreakpoint(line - 1);
        QTableWidget* t = w.breakpoints()->table();
        ASSERT_EQ(t->rowCount(), 1);
        EXPECT_EQ(t->item(0, BreakpointsView::Line)->text(), QString::number(line));
        t->item(0, BreakpointsView::Condition)->setText("threadIdx.x ==");
        EXPECT_TRUE(w.breakpoints()->note().contains("the condition ends too soon"))
            << w.breakpoints()->note().toStdString();
        EXPECT_EQ(t->item(0, BreakpointsView::Condition)->text(), "") << "a bad condition is not kept";
        t->item(0, BreakpointsView::Condition)->setText("threadIdx.x == 5");
        w.debugger().run();
        w.debugger().waitIdle();
        EXPECT_EQ(w.debugger().snapshot()->next.warp, 1);
        EXPECT_EQ(t->item(0, BreakpointsView::Hits)->text(), "1");
        t->item(0, BreakpointsView::Line)->setCheckState(Qt::Unchecked);
        EXPECT_FALSE(w.debugger().breakpoints().at(line).enabled);
        EXPECT_TRUE(w.editor()->markersAtLine(line - 1) & (1 << 1)) << "a breakpoint turned off keeps its mark";
    }
    MainWindow again;  // the next session opens the file with its breakpoints
    again.show();
    ASSERT_TRUE(again.openProgram(path));
    ASSERT_EQ(again.debugger().breakpoints().size(), 1u);
    const SourceBreakpoint& kept = again.debugger().breakpoints().at(line);
    EXPECT_FALSE(kept.enabled);
    EXPECT_EQ(kept.condition, "threadIdx.x == 5");
}

TEST(StudioWatch, EachWatchIsEvaluatedForEveryLaneOfTheWarpAboutToRun) {
    auto w = windowWithExample("tree_reduce.qasm");
    ASSERT_TRUE(w);
    WatchView* watch = w->watch();
    watch->addWatch("threadIdx.x * 10 + blockDim.x");
    watch->addWatch("in[threadIdx.x] + r1");
    watch->addWatch("nothing + 1");
    for (int i = 0; i < 4; ++i) w->debugger().step();  // warp 1 has loaded r1 = tid.x
    QTableWidget* t = watch->table();
    ASSERT_EQ(t->rowCount(), 3);
    ASSERT_EQ(t->columnCount(), 5);
    int warp = w->debugger().snapshot()->next.warp;
    int first = warp * 4;
    EXPECT_EQ(t->horizontalHeaderItem(1)->text(), QString("thread (%1,0,0)").arg(first));
    EXPECT_EQ(t->item(0, 2)->text(), QString::number((first + 1) * 10 + 8));
    std::vector<int> in = {3, 1, 4, 1, 5, 9, 2, 6};
    int r1 = int(w->debugger().snapshot()->state.threads[size_t(first + 3)].regs[1]);
    EXPECT_EQ(t->item(1, 4)->text(), QString::number(in[size_t(first + 3)] + r1));
    EXPECT_TRUE(t->item(2, 1)->text().contains("'nothing' is not known here")) << t->item(2, 1)->text().toStdString();
    watch->removeWatch(2);
    EXPECT_EQ(t->rowCount(), 2);
}

TEST(StudioHistory, ARegisterOrAMemoryWordShowsEveryStepThatWroteIt) {
    auto w = windowWithExample("tree_reduce.qasm");
    ASSERT_TRUE(w);
    w->debugger().run();
    w->debugger().waitIdle();
    // r3 (the stride) of thread 1: 4, then halved after each level.
    w->registers()->setWarp(0);
    emit w->registers()->table()->cellDoubleClicked(1, 4);
    QTableWidget* t = w->history()->table();
    EXPECT_TRUE(w->history()->subject().startsWith("r3 of block (0,0,0) thread (1,0,0): written 4 times"))
        << w->history()->subject().toStdString();
    ASSERT_EQ(t->rowCount(), 4);
    EXPECT_EQ(t->item(0, HistoryView::After)->text(), "4");
    EXPECT_EQ(t->item(3, HistoryView::After)->text(), "0");
    // out[0], the launch's last word: written once, by thread 0.
    QTableWidget* memory = w->memory()->table();
    emit memory->cellDoubleClicked(memory->rowCount() - 1, 1);
    ASSERT_EQ(t->rowCount(), 1);
    EXPECT_TRUE(w->history()->stopOnChange()->isEnabled());
    w->history()->stopOnChange()->setChecked(true);
    EXPECT_EQ(w->debugger().dataBreakpoint(), w->debugger().lastBuild().map.find("out")->base);
    EXPECT_EQ(t->item(0, HistoryView::Thread)->text(), "block (0,0,0) thread (0,0,0)");
    EXPECT_EQ(t->item(0, HistoryView::After)->text(), "31");
    int step = t->item(0, HistoryView::Step)->text().toInt();
    emit t->cellClicked(0, HistoryView::Step);
    w->debugger().waitIdle();
    EXPECT_EQ(w->debugger().snapshot()->position, step + 1);
}
