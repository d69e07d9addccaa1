// Floats in the machine views: registers the compiler marks as holding a PTX .f32 value and the words of
// "type": "float" arrays show as floats, and each view's format box switches to other readings.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QListWidget>
#include <QRegularExpression>
#include <QTableWidget>

#include "StudioTestSupport.h"
#include "qgpu/core/Launch.h"
#include "qgpu/ui/MainWindow.h"
#include "qgpu/ui/StateViews.h"

using namespace qgpu;

namespace {

QString asFloat(uint32_t word) { return QString::fromStdString(formatWord(int32_t(word), true)); }

std::unique_ptr<MainWindow> windowWithKernel(const QString& name) {
    auto w = std::make_unique<MainWindow>();
    w->resize(1280, 800);
    w->show();
    bool opened = w->openProgram(QString(QGPU_SOURCE_DIR) + "/resources/kernels/" + name);
    EXPECT_TRUE(opened) << w->statusText().toStdString();
    return opened ? std::move(w) : nullptr;
}

int rowNamed(QTableWidget* t, const QString& name) {
    for (int row = 0; row < t->rowCount(); ++row)
        if (t->verticalHeaderItem(row)->text() == name) return row;
    return -1;
}

}  // namespace

TEST(StudioFloats, FloatArraysShowTheirWordsAsFloatsUntilTheUserPicksAnotherFormat) {
    auto w = windowWithKernel("float_vector_add.cu");
    ASSERT_TRUE(w);
    w->debugger().run();
    w->debugger().waitIdle();
    QTableWidget* mem = w->memory()->table();
    const MachineState& s = w->debugger().session().snapshot();
    int a0 = rowNamed(mem, "a[0]"), c2 = rowNamed(mem, "c[2]");
    ASSERT_GE(a0, 0);
    ASSERT_GE(c2, 0);
    EXPECT_EQ(mem->item(a0, 1)->text(), "1.5");
    EXPECT_EQ(mem->item(c2, 1)->text(), "0.3");  // 0.1f + 0.2f rounds to 0.3f
    uint32_t c2Word = s.global[size_t(mem->item(c2, 0)->text().toInt())];
    EXPECT_EQ(mem->item(c2, 2)->text(), formatWord(c2Word, NumberFormat::Hex));
    w->memory()->setFormat(NumberFormat::Signed);
    EXPECT_EQ(mem->item(c2, 1)->text(), QString::number(int32_t(c2Word)));
    w->memory()->setFormat(NumberFormat::AsTyped);
    EXPECT_EQ(mem->item(c2, 1)->text(), "0.3");
}

TEST(StudioFloats, RegistersHoldingAFloatWhereTheLaneStandsShowAsFloats) {
    auto w = windowWithKernel("float_vector_add.cu");
    ASSERT_TRUE(w);
    QTableWidget* regs = w->registers()->table();
    bool sawA0 = false;
    int floatCells = 0;
    for (int n = 0; n < 400 && w->debugger().session().peek().warp >= 0; ++n) {
        w->debugger().step();
        const MachineState& s = w->debugger().session().snapshot();
        int warp = w->registers()->warp();
        for (int lane = 0; lane < 4; ++lane) {
            const ThreadState& t = s.threads[size_t(warp * 4 + lane)];
            bool runs = t.status == LaneStatus::Live || t.status == LaneStatus::AtBarrier;
            uint16_t floats = runs ? w->debugger().lastBuild().program.blocks[size_t(t.pc)].floatRegisters : 0;
            for (int r = 1; r < 16; ++r) {
                uint32_t v = t.regs[size_t(r)];
                bool isFloat = (floats >> r) & 1;
                QString want = isFloat ? asFloat(v) : QString::number(int32_t(v));
                ASSERT_EQ(regs->item(lane, r + 1)->text(), want) << "step " << n << " lane " << lane << " r" << r;
                floatCells += isFloat;
                sawA0 = sawA0 || (isFloat && warp == 0 && lane == 0 && want == "1.5");
            }
        }
    }
    EXPECT_GT(floatCells, 0);
    EXPECT_TRUE(sawA0) << "a[0] loaded into a register of lane 0 shows as 1.5";
    // The step list says so too: lane 0's load of a[0] reads "= 1.5 (was 0)".
    bool listed = false;
    for (int i = 0; i < w->events()->count(); ++i)
        listed = listed || w->events()->item(i)->text().contains(QRegularExpression("t0\\.r\\d+ = 1\\.5 \\(was 0\\)"));
    EXPECT_TRUE(listed);
    // Another format shows every register that way.
    w->registers()->setFormat(NumberFormat::Hex);
    EXPECT_TRUE(regs->item(0, 2)->text().startsWith("0x"));
}

TEST(StudioFloats, SharedMemoryShowsIntegersUntilTheFormatBoxSaysFloat) {
    auto w = windowWithKernel("float_reduce_shared.cu");
    ASSERT_TRUE(w);
    w->debugger().run();
    w->debugger().waitIdle();
    QTableWidget* t = w->sharedMemory()->table();
    ASSERT_GT(t->rowCount(), 0);
    const MachineState& s = w->debugger().session().snapshot();
    uint32_t word = s.shared[size_t(w->sharedMemory()->block())][0];
    EXPECT_EQ(t->item(0, 0)->text(), QString::number(int32_t(word)));
    w->sharedMemory()->setFormat(NumberFormat::Float);
    EXPECT_EQ(t->item(0, 0)->text(), asFloat(word));
}

TEST(StudioFloats, IntegerKernelsMarkNoRegisterAsFloat) {
    auto w = windowWithKernel("matmul.cu");
    ASSERT_TRUE(w);
    for (const Block& b : w->debugger().lastBuild().program.blocks) EXPECT_EQ(b.floatRegisters, 0);
}
