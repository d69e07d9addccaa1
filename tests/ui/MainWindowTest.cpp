// Widget tests of the studio window against the reference interpreter, under xcb (Xvfb).
#include <gtest/gtest.h>

#include <Qsci/qsciscintilla.h>

#include <QApplication>
#include <QDockWidget>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QSettings>
#include <QTemporaryDir>
#include <QWindow>
#include <QTableWidget>

#include "qgpu/core/Assembler.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/ui/CodeViews.h"
#include "qgpu/ui/ImGuiHost.h"
#include "qgpu/ui/MainWindow.h"
#include "qgpu/ui/StateViews.h"
#include "StudioTestSupport.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

class StudioTest : public ::testing::Test {
protected:
    void SetUp() override {
        window = windowWithExample("dot_product.qasm");
        ASSERT_TRUE(window);
    }
    std::unique_ptr<MainWindow> window;
};

}  // namespace

TEST_F(StudioTest, SteppingShowsTheInterpretersRegistersAndMemory) {
    for (int n = 1; n <= 2; ++n) {
        window->debugger().step();
        Interpreter ref = referenceAfter(*window, n);
        expectRegistersMatch(*window, ref.state());
        EXPECT_EQ(window->events()->count(), n);
    }
    window->debugger().run();
    window->debugger().waitIdle();
    EXPECT_TRUE(window->statusText().contains("finished")) << window->statusText().toStdString();
    Interpreter ref = referenceAfter(*window, 1000);
    const ArrayPlacement* out = ref.memoryMap().find("out");
    ASSERT_TRUE(out);
    QTableWidget* mem = window->memory()->table();
    bool found = false;
    for (int row = 0; row < mem->rowCount(); ++row)
        if (mem->verticalHeaderItem(row)->text() == "out[0]") {
            EXPECT_EQ(mem->item(row, 1)->text(), "32");
            found = true;
        }
    EXPECT_TRUE(found);
}

TEST_F(StudioTest, SteppingBackRestoresEarlierState) {
    window->debugger().step();
    QString afterOne = window->registers()->table()->item(0, 2)->text();
    window->debugger().step();
    window->debugger().stepBack();
    EXPECT_EQ(window->debugger().session().position(), 1);
    EXPECT_EQ(window->registers()->table()->item(0, 2)->text(), afterOne);
    expectRegistersMatch(*window, referenceAfter(*window, 1).state());
}

TEST_F(StudioTest, AssemblyErrorIsAnnotatedAtItsLine) {
    window->editor()->setText("entry:\n    add r1, r2\n    exit\n");
    EXPECT_FALSE(window->build());
    EXPECT_TRUE(window->editor()->annotation(1).contains("takes 3 operands"))
        << window->editor()->annotation(1).toStdString();
    EXPECT_TRUE(window->statusText().contains(":2:")) << window->statusText().toStdString();
}

TEST_F(StudioTest, BreakpointStopsBeforeItsBlock) {
    Program p = assemble(window->editor()->text().toStdString());
    ASSERT_GE(p.blocks.size(), 2u);
    int line = p.blocks[1].terminatorLoc.line;  // a line of the second block
    window->toggleBreakpoint(line - 1);
    window->debugger().run();
    window->debugger().waitIdle();
    EXPECT_TRUE(window->statusText().contains("breakpoint")) << window->statusText().toStdString();
    EXPECT_EQ(window->debugger().session().peek().block, 1);
}

TEST_F(StudioTest, BreakpointOnALabelLineStopsAtThatBlock) {
    Program p = assemble(window->editor()->text().toStdString());
    ASSERT_GT(p.blocks[1].labelLoc.line, 0);
    window->toggleBreakpoint(p.blocks[1].labelLoc.line - 1);
    window->debugger().run();
    window->debugger().waitIdle();
    EXPECT_EQ(window->debugger().session().peek().block, 1);
}

TEST_F(StudioTest, FailedBuildNeverRunsThePreviousKernel) {
    window->launchEditor()->setPlainText("{ not json");
    EXPECT_FALSE(window->build());
    EXPECT_FALSE(window->debugger().session().loaded());
    window->debugger().step();  // nothing to run: must not crash or step the old kernel
    EXPECT_EQ(window->debugger().session().position(), 0);
    EXPECT_EQ(window->events()->count(), 0);
}

TEST_F(StudioTest, RunToCursorStopsBeforeTheLinesBlockAndStepLineLeavesTheLine) {
    Program p = assemble(window->editor()->text().toStdString());
    ASSERT_GE(p.blocks.size(), 2u);
    window->debugger().runToLine(p.blocks[1].labelLoc.line);
    window->debugger().waitIdle();
    EXPECT_EQ(window->debugger().session().peek().block, 1);
    EXPECT_GT(window->debugger().session().position(), 0);
    int line = p.blocks[1].bodyLocs.empty() ? p.blocks[1].terminatorLoc.line : p.blocks[1].bodyLocs.front().line;
    window->debugger().stepLine();
    window->debugger().waitIdle();
    NextStep next = window->debugger().session().peek();
    if (next.warp >= 0) {
        const Block& b = p.blocks[size_t(next.block)];
        EXPECT_NE(b.bodyLocs.empty() ? b.terminatorLoc.line : b.bodyLocs.front().line, line);
    }
    window->debugger().runToLine(1000);  // no code there: nothing moves
    EXPECT_TRUE(window->statusText().contains("has no machine code")) << window->statusText().toStdString();
}

TEST_F(StudioTest, ComparingNeedsASecondBackend) {
    EXPECT_FALSE(window->debugger().compareBackends());
    EXPECT_TRUE(window->statusText().contains("nothing to compare")) << window->statusText().toStdString();
}

TEST_F(StudioTest, DivergenceTimelineRendersThroughImGui) {
    window->debugger().run();
    window->debugger().waitIdle();
    auto* host = window->findChild<ImGuiHost*>("timelineView");
    ASSERT_TRUE(host);
    QImage img = host->grabFramebuffer();
    ASSERT_FALSE(img.isNull());
    int green = 0;
    for (int y = 0; y < img.height(); ++y)
        for (int x = 0; x < img.width(); ++x) {
            QColor c = img.pixelColor(x, y);
            if (c.green() > 150 && c.red() < 100 && c.blue() < 140) ++green;
        }
    EXPECT_GT(green, 20) << "active-lane cells should be drawn";
}

// The viewers draw offscreen: a widget that renders into the window itself (a QOpenGLWidget) would make Qt
// compose the whole window through OpenGL at every repaint (a window-sized upload each time).
TEST_F(StudioTest, TheWindowStaysARasterWindowWithTheImGuiViewersShown) {
    auto* host = window->findChild<ImGuiHost*>("timelineView");
    ASSERT_TRUE(host);
    QWidget* dock = host;
    while (dock && !qobject_cast<QDockWidget*>(dock)) dock = dock->parentWidget();
    ASSERT_TRUE(dock);
    dock->show();
    dock->raise();
    for (int i = 0; i < 5; ++i) QApplication::processEvents();
    ASSERT_TRUE(host->isVisible());
    EXPECT_FALSE(host->grabFramebuffer().isNull());
    ASSERT_TRUE(window->windowHandle());
    EXPECT_EQ(window->windowHandle()->surfaceType(), QSurface::RasterSurface);
}

TEST(StudioCuda, KernelBuildsWithPtxAndLinkedBlocks) {
    MainWindow w;
    w.show();
    ASSERT_TRUE(w.openProgram(kExamples + "dot_product.cu")) << w.statusText().toStdString();
    EXPECT_TRUE(w.codeViews()->ptxView()->toPlainText().contains(".visible .entry"));
    ASSERT_GT(w.codeViews()->blockView()->count(), 0);
    // line 5 holds the atomicAdd: it must select machine slots and PTX lines, and clicking a slot
    // brings the editor back to line 5
    EXPECT_GT(w.codeViews()->selectSourceLine(5), 0);
    EXPECT_FALSE(w.codeViews()->ptxView()->extraSelections().isEmpty());
    QListWidgetItem* selected = w.codeViews()->blockView()->selectedItems().value(0);
    ASSERT_TRUE(selected);
    emit w.codeViews()->blockView()->itemClicked(selected);
    int line = 0, col = 0;
    w.editor()->getCursorPosition(&line, &col);
    EXPECT_EQ(line, 4);
    w.debugger().run();
    w.debugger().waitIdle();
    EXPECT_TRUE(w.statusText().contains("out = [32]")) << w.statusText().toStdString();
}

TEST(StudioCuda, ADivergentBarrierStopsTheRunWithTheFaultAtItsLine) {
    MainWindow w;
    w.show();
    ASSERT_TRUE(w.openProgram(kExamples + "dot_product.cu"));
    w.editor()->setText(
        "__global__ void dot_product(const int* a, const int* b, int* out) {\n"
        "    int t = threadIdx.x;\n"
        "    if (t < 1)\n"
        "        __syncthreads();\n"
        "    out[0] = a[t] + b[t];\n"
        "}\n");
    ASSERT_TRUE(w.build()) << w.statusText().toStdString();
    w.debugger().run();
    w.debugger().waitIdle();
    EXPECT_TRUE(w.statusText().contains("machine fault")) << w.statusText().toStdString();
    EXPECT_TRUE(w.statusText().contains("dot_product.cu:4: divergent barrier: warp 0")) << w.statusText().toStdString();
}

TEST(StudioCuda, CompileErrorIsAnnotatedAtTheCudaLine) {
    MainWindow w;
    w.show();
    ASSERT_TRUE(w.openProgram(kExamples + "dot_product.cu"));
    w.editor()->setText(
        "__global__ void dot_product(const int* a, const int* b, int* out) {\n"
        "    int i = threadIdx.x;\n"
        "    atomicAdd(&out[0], a[i] * c[i]);\n"
        "}\n");
    EXPECT_FALSE(w.build());
    EXPECT_TRUE(w.editor()->annotation(2).contains("undeclared identifier 'c'"))
        << w.editor()->annotation(2).toStdString();
    EXPECT_FALSE(w.debugger().session().loaded());
    EXPECT_EQ(w.codeViews()->blockView()->count(), 0);
}

TEST(StudioCuda, UnsupportedCudaIsExplainedAtItsLine) {
    MainWindow w;
    w.show();
    ASSERT_TRUE(w.openProgram(kExamples + "dot_product.cu"));
    w.editor()->setText(
        "__global__ void dot_product(const int* a, const int* b, int* out) {\n"
        "    out[0] = __byte_perm(a[0], b[0], b[1]);\n"
        "}\n");
    EXPECT_FALSE(w.build());
    EXPECT_TRUE(w.editor()->annotation(1).contains("selector")) << w.editor()->annotation(1).toStdString();
    // It compiled to PTX: the PTX the message cites stays in its panel, with no machine blocks.
    EXPECT_TRUE(w.codeViews()->ptxView()->toPlainText().contains("prmt")) << "the PTX panel went blank";
    EXPECT_EQ(w.codeViews()->blockView()->count(), 0);
}

namespace {

// Each test starts from the first-run settings (layout, recent files, breakpoints), also when one process
// runs them all.
class FreshSettings : public ::testing::EmptyTestEventListener {
    void OnTestStart(const ::testing::TestInfo&) override { QSettings("qgpu", "qgpu-studio").clear(); }
};

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QTemporaryDir settings;  // each test process starts from the first-run layout, and leaves the user's alone
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
    ::testing::InitGoogleTest(&argc, argv);
    ::testing::UnitTest::GetInstance()->listeners().Append(new FreshSettings);
    return RUN_ALL_TESTS();
}
