// The studio on the model backend: the GPU inside the model runs the launch, the window shows the state
// decoded from its recurrent state (the interpreter's values) and the tokens it wrote. Under xcb (Xvfb).
// The runtime's headers come before Qt's (Qt's `emit` macro).
#include "../../app/studio/StudioChat.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/runtime/GpuModel.h"
#include "qgpu/runtime/ModelSession.h"
#include "qgpu/runtime/Qwen35Model.h"
#include "../runtime/TinyConfig.h"
#include "../text/TextTestUtil.h"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <QApplication>
#include <QTest>
#include <QDockWidget>
#include <QSettings>
#include <QTemporaryDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QProgressBar>
#include <QTableWidget>

#include "qgpu/ui/ChatPanel.h"
#include "qgpu/ui/HistoryView.h"
#include "qgpu/ui/ImGuiHost.h"
#include "qgpu/ui/LayerView.h"
#include "qgpu/ui/RomView.h"
#include "qgpu/ui/StateHeatmap.h"

#include "StudioTestSupport.h"

using namespace qgpu;
using namespace qgpu::testing;

TEST(StudioModel, SteppingTheModelShowsTheInterpretersStateAndTheTokensItWrote) {
    auto model = GpuModel::build({Engine::Sparse});
    MainWindow window;
    window.debugger().addBackend("model", [&] { return makeModelSession(*model); });
    window.resize(1200, 800);
    window.show();
    ASSERT_TRUE(window.openProgram(kExamples + "dot_product.qasm")) << window.statusText().toStdString();
    EXPECT_TRUE(window.tokens()->item(0)->text().contains("writes no tokens"));
    ASSERT_TRUE(window.debugger().setBackend("model")) << window.statusText().toStdString();
    EXPECT_EQ(window.debugger().backend(), "model");
    EXPECT_EQ(window.debugger().session().backendName(), "model");
    int fed = window.tokens()->count();
    ASSERT_GT(fed, 0);
    EXPECT_TRUE(window.tokens()->item(fed - 1)->text().contains("GRID("))
        << window.tokens()->item(fed - 1)->text().toStdString();
    // Each token says what it means; search finds a token by its text or its meaning, without moving.
    EXPECT_TRUE(window.tokens()->item(fed - 1)->toolTip().contains("the launch starts"))
        << window.tokens()->item(fed - 1)->toolTip().toStdString();
    EXPECT_EQ(window.tokens()->findNext("grid("), fed - 1);
    EXPECT_EQ(window.tokens()->findNext("the launch's thread-block shape"), fed - 2);
    EXPECT_EQ(window.tokens()->findNext("no such token"), -1);
    EXPECT_EQ(window.debugger().snapshot()->position, 0);

    // Step token: the model writes the first step one token at a time and every panel follows. Its first
    // records are sreg r1, tid.x of lane 0 and lane 1: thread 1's r1 is 1 once its one byte is written.
    window.debugger().stepToken();
    EXPECT_EQ(window.tokens()->currentRow(), fed);  // the EXEC record
    window.debugger().stepToken();
    window.debugger().stepToken();
    EXPECT_EQ(window.tokens()->currentRow(), fed + 2);
    EXPECT_TRUE(window.tokens()->currentItem()->text().endsWith("VAL(s0,l1,k0,0x01.)"))
        << window.tokens()->currentItem()->text().toStdString();
    EXPECT_EQ(window.debugger().session().position(), 0);
    EXPECT_EQ(window.registers()->table()->item(1, 2)->text(), "1");  // lane 1, r1
    // The arrow keys go to the token they reach, as a click does: the highlight and the machine agree.
    window.tokens()->setFocus();
    QTest::keyClick(window.tokens(), Qt::Key_Up);
    window.debugger().waitIdle();
    EXPECT_EQ(window.tokens()->currentRow(), fed + 1);
    EXPECT_EQ(window.debugger().session().tokens().writtenNow, 2u);
    EXPECT_EQ(window.registers()->table()->item(1, 2)->text(), "0");
    QTest::keyClick(window.tokens(), Qt::Key_Down);
    window.debugger().waitIdle();
    EXPECT_EQ(window.debugger().session().tokens().writtenNow, 3u);
    EXPECT_EQ(window.registers()->table()->item(1, 2)->text(), "1");
    window.debugger().stepBack();  // back before the step's tokens
    EXPECT_EQ(window.registers()->table()->item(1, 2)->text(), "0");
    for (int n = 1; n <= 2; ++n) {
        window.debugger().step();
        expectRegistersMatch(window, referenceAfter(window, n).state());
        EXPECT_EQ(window.events()->count(), n);
    }
    // The heatmap reads the recurrent state: warp 0's lane-0 registers are rows 0..15 of regs_a0.
    StateHeatmap& heat = *window.heatmap();
    const auto& memories = heat.layout().memories;
    auto regs = std::find(memories.begin(), memories.end(), "regs_a0");
    ASSERT_NE(regs, memories.end());
    int index = int(regs - memories.begin());
    heat.select(index / heat.layout().heads, index % heat.layout().heads);
    Interpreter two = referenceAfter(window, 2);
    for (int r = 1; r < 16; ++r) EXPECT_EQ(heat.head().rowWords[size_t(r)], two.state().threads[0].regs[size_t(r)]);
    EXPECT_EQ(heat.head().rowLabels[3], "warp 0, lane 0, r3");

    QString current = window.tokens()->currentItem()->text();
    EXPECT_TRUE(current.contains(" written ")) << current.toStdString();
    window.debugger().stepBack();
    expectRegistersMatch(window, referenceAfter(window, 1).state());

    window.debugger().run();
    while (window.debugger().running()) QApplication::processEvents();
    EXPECT_TRUE(window.statusText().contains("finished")) << window.statusText().toStdString();
    expectRegistersMatch(window, referenceAfter(window, 1000).state());
    // The token view lists the interpreter's stream, record for record, after what was fed.
    Interpreter end = referenceAfter(window, 0);
    gpu::ReferenceLaunch ref = gpu::referenceLaunch(end.program(), end.launch());
    ASSERT_EQ(window.tokens()->count(), fed + int(ref.stream.size()));
    for (size_t i = 0; i < ref.stream.size(); ++i)
        EXPECT_TRUE(window.tokens()->item(fed + int(i))->text().endsWith(QString::fromStdString(ref.stream[i].text())))
            << i << ": " << window.tokens()->item(fed + int(i))->text().toStdString();
    // The memory view shows the arrays the interpreter ends with.
    QTableWidget* mem = window.memory()->table();
    int outRow = -1;
    for (int row = 0; row < mem->rowCount(); ++row)
        if (mem->verticalHeaderItem(row)->text() == "out[0]") outRow = row;
    ASSERT_GE(outRow, 0);
    EXPECT_EQ(mem->item(outRow, 1)->text(), "32");

    // Run to cursor on the model, in slices: before the block that a line holds.
    window.debugger().reset();
    Program program = assemble(window.editor()->text().toStdString());
    window.debugger().runToLine(program.blocks[1].labelLoc.line);
    while (window.debugger().running()) QApplication::processEvents();
    EXPECT_EQ(window.debugger().session().peek().block, 1) << window.statusText().toStdString();
    EXPECT_TRUE(window.statusText().contains("runs code of line")) << window.statusText().toStdString();

    // The side-by-side diff with the reference: the same machine after every step.
    ASSERT_TRUE(window.debugger().compareBackends());
    while (window.debugger().running()) QApplication::processEvents();
    EXPECT_TRUE(window.diff()->item(0)->text().startsWith("model vs reference: the same machine after every one of"))
        << window.diff()->item(0)->text().toStdString();

    // Clicking a written token goes to the moment the model wrote it: the last token of step 1 ends it; the
    // first is mid-step (its EXEC only), where the machine is still the one before the step.
    size_t endOfFirst = window.debugger().session().tokens().writtenAfterStep[0];
    ASSERT_GT(endOfFirst, 1u);
    emit window.tokens()->itemActivated(window.tokens()->item(fed + int(endOfFirst) - 1));
    window.debugger().waitIdle();  // moving is a run on the engine thread
    EXPECT_EQ(window.debugger().session().position(), 1);
    EXPECT_EQ(window.tokens()->currentRow(), fed + int(endOfFirst) - 1);
    expectRegistersMatch(window, referenceAfter(window, 1).state());
    emit window.tokens()->itemClicked(window.tokens()->item(fed));
    window.debugger().waitIdle();
    EXPECT_EQ(window.debugger().session().position(), 0);
    EXPECT_EQ(window.tokens()->currentRow(), fed);
    expectRegistersMatch(window, referenceAfter(window, 0).state());
    // Token steps after Reset walk the recorded tokens one at a time, and back.
    window.debugger().reset();
    window.debugger().stepToken();
    window.debugger().stepToken();
    EXPECT_EQ(window.tokens()->currentRow(), fed + 1);
    window.debugger().stepBackToken();
    EXPECT_EQ(window.tokens()->currentRow(), fed);
    window.debugger().stepBackToken();
    EXPECT_EQ(window.tokens()->currentRow(), fed - 1);  // the last fed token: nothing written yet
}

// A model run saved from the window opens in a window that has no model at all: the same stream, the same
// machines both ways, the same verdict. A file that is not a run is refused in the status line.
TEST(StudioModel, ARecordedModelRunOpensAndStepsWithoutTheModel) {
    auto model = GpuModel::build({Engine::Sparse});
    QTemporaryDir dir;
    QString path = dir.filePath("dot.qrun");
    std::shared_ptr<const DebugSnapshot> end;
    int shownTokens = 0;
    {
        MainWindow window;
        window.debugger().addBackend("model", [&] { return makeModelSession(*model); });
        ASSERT_TRUE(window.openProgram(kExamples + "dot_product.qasm")) << window.statusText().toStdString();
        ASSERT_TRUE(window.debugger().setBackend("model")) << window.statusText().toStdString();
        window.debugger().run();
        window.debugger().waitIdle();
        end = window.debugger().snapshot();
        shownTokens = window.tokens()->count();
        ASSERT_TRUE(window.debugger().saveRun(path)) << window.statusText().toStdString();
    }
    MainWindow replay;  // the reference interpreter only
    EXPECT_FALSE(replay.openRun(kExamples + "dot_product.json"));
    EXPECT_TRUE(replay.statusText().contains("not a run qgpu recorded")) << replay.statusText().toStdString();
    ASSERT_TRUE(replay.openRun(path)) << replay.statusText().toStdString();
    EXPECT_EQ(replay.debugger().backend(), "recorded: dot.qrun");
    EXPECT_EQ(replay.filePath(), "") << "the recorded source is a document without a file";
    replay.debugger().run();
    replay.debugger().waitIdle();
    std::shared_ptr<const DebugSnapshot> again = replay.debugger().snapshot();
    EXPECT_EQ(again->position, end->position);
    EXPECT_EQ(again->state.global, end->state.global);
    EXPECT_EQ(again->tokens.written, end->tokens.written);
    EXPECT_EQ(replay.tokens()->count(), shownTokens);
    EXPECT_TRUE(replay.statusText().contains("Every expected array matches")) << replay.statusText().toStdString();
    replay.debugger().stepBack();
    EXPECT_EQ(replay.debugger().snapshot()->position, end->position - 1);
    EXPECT_EQ(replay.debugger().snapshot()->tokens.writtenNow, end->tokens.writtenAfterStep[size_t(end->position - 2)]);
}

TEST(StudioModel, TheRomAndSharedMemoryViewsReadTheModelsStateAndAgreeWithTheReference) {
    auto model = GpuModel::build({Engine::Sparse});
    MainWindow window, reference;
    window.debugger().addBackend("model", [&] { return makeModelSession(*model); });
    const QString kernel = QString(QGPU_SOURCE_DIR) + "/resources/kernels/tree_reduce.cu";
    for (MainWindow* w : {&window, &reference}) {
        w->resize(1280, 800);
        w->show();
        ASSERT_TRUE(w->openProgram(kernel)) << w->statusText().toStdString();
    }
    ASSERT_TRUE(window.debugger().setBackend("model")) << window.statusText().toStdString();
    // The ROM decoded from the recurrent state holds every word the compiler produced.
    RomView* rom = window.rom();
    EXPECT_EQ(rom->differences(), 0);
    EXPECT_TRUE(rom->findChild<QLabel*>("romSummary")->text().contains("decoded from its recurrent state"));
    EXPECT_EQ(rom->table()->rowCount(), reference.rom()->table()->rowCount());
    // Shared memory decoded from the model, step for step the interpreter's, in the step's thread block.
    for (int n = 1; n <= 24; ++n) {
        window.debugger().step();
        reference.debugger().step();
        ASSERT_EQ(window.sharedMemory()->block(), reference.sharedMemory()->block()) << "step " << n;
        QTableWidget *got = window.sharedMemory()->table(), *want = reference.sharedMemory()->table();
        ASSERT_EQ(got->rowCount(), 32);
        for (int a = 0; a < 32; ++a) {
            EXPECT_EQ(got->item(a, 0)->text(), want->item(a, 0)->text()) << "step " << n << ", s[" << a << "]";
            EXPECT_EQ(got->item(a, 0)->background(), want->item(a, 0)->background()) << "step " << n;
        }
    }
    // Back one step: the tokens it wrote are shown as not reached; the current one is not.
    window.debugger().stepBack();
    QListWidget* tokens = window.tokens();
    int current = tokens->currentRow();
    ASSERT_LT(current, tokens->count() - 1);
    EXPECT_FALSE(tokens->item(current)->font().italic());
    EXPECT_TRUE(tokens->item(current + 1)->font().italic());
    EXPECT_TRUE(tokens->item(tokens->count() - 1)->font().italic());
}

namespace {

// A shown 1280x800 studio with an example open on the model backend (the model outlives the window).
struct ModelStudio {
    std::unique_ptr<GpuModel> model = GpuModel::build({Engine::Sparse});
    MainWindow window;
    explicit ModelStudio(const QString& example) {
        window.debugger().addBackend("model", [this] { return makeModelSession(*model); });
        window.resize(1280, 800);
        window.show();
        EXPECT_TRUE(window.openProgram(kExamples + example)) << window.statusText().toStdString();
        EXPECT_TRUE(window.debugger().setBackend("model")) << window.statusText().toStdString();
    }
};

}  // namespace

// The layer view decodes the token going in, layer by layer: over the tokens of a step that stores a word, a
// layer's mixer writes that word's row of global memory; a click on a field lists its residual dims.
TEST(StudioModel, TheLayerViewShowsTheMixerWritingTheWordAStepStores) {
    ModelStudio studio("branches.qasm");
    ASSERT_FALSE(::testing::Test::HasFailure());
    MainWindow& window = studio.window;
    auto* dock = window.findChild<QDockWidget*>("Layers");
    ASSERT_TRUE(dock);
    dock->raise();
    QApplication::processEvents();
    LayerView* layers = window.layers();
    ASSERT_TRUE(layers->isVisible());
    // Step to the start of the first step that stores to global memory.
    int store = -1;
    for (int n = 0; n < 200 && store < 0; ++n) {
        window.debugger().step();
        const StepEvent& e = window.debugger().session().history().back();
        for (const MemWrite& w : e.memWrites)
            if (w.space == MemSpace::Global) store = w.addr;
    }
    ASSERT_GE(store, 0);
    window.debugger().stepBack();
    window.debugger().waitIdle();  // the Layers panel's trace comes from the engine thread
    const QString wanted = QString("(global word %1)").arg(store);
    bool seen = false;
    int position = window.debugger().session().position();
    while (window.debugger().session().position() == position) {
        QTableWidget* t = layers->table();
        ASSERT_GT(t->rowCount(), 100);
        int fed = int(window.debugger().session().tokens().fed.size());
        EXPECT_TRUE(
            layers->summary()->text().contains(window.tokens()
                                                   ->item(fed + int(window.debugger().session().tokens().writtenNow))
                                                   ->text()
                                                   .section(' ', -1)
                                                   .toHtmlEscaped()))
            << layers->summary()->text().toStdString();
        for (int r = 0; r < t->rowCount(); ++r)
            if (t->item(r, LayerView::What)->text() == "mixer writes" &&
                t->item(r, LayerView::Name)->text().startsWith("global") &&
                t->item(r, LayerView::Value)->text().contains(wanted))
                seen = true;
        window.debugger().stepToken();
        window.debugger().waitIdle();
    }
    EXPECT_TRUE(seen) << "no layer wrote " << wanted.toStdString();
    // A field's dims: one row per bit, with the residual before the layer, after its mixer and after it.
    QTableWidget* t = layers->table();
    int alu = -1;
    for (int r = 0; r < t->rowCount() && alu < 0; ++r)
        if (t->item(r, LayerView::Name)->text() == "alu" && t->item(r, LayerView::What)->text() == "writes") alu = r;
    ASSERT_GE(alu, 0);
    EXPECT_FALSE(layers->dimTable()->isVisibleTo(layers)) << "the dims pane takes room before a field is chosen";
    int tableWidth = t->width();
    t->setCurrentCell(alu, 0);
    EXPECT_TRUE(layers->dimTable()->isVisibleTo(layers));
    QApplication::processEvents();
    EXPECT_LT(t->width(), tableWidth) << "the dims pane shows beside the table";
    EXPECT_EQ(layers->dimTable()->rowCount(), 32);
    EXPECT_EQ(layers->dimTable()->item(0, 1)->text(), "alu.0");
    // The next token keeps the same field selected.
    window.debugger().stepToken();
    window.debugger().waitIdle();
    ASSERT_GE(t->currentRow(), 0);
    EXPECT_EQ(t->item(t->currentRow(), LayerView::Name)->text(), "alu");
    EXPECT_EQ(layers->dimTable()->rowCount(), 32);
    // The filter keeps the rows that name what it says.
    layers->findChild<QLineEdit*>("layerFilter")->setText("regs_a");
    int shown = 0;
    for (int r = 0; r < t->rowCount(); ++r)
        if (!t->isRowHidden(r)) {
            ++shown;
            EXPECT_TRUE(t->item(r, LayerView::Name)->text().contains("regs_a"));
        }
    EXPECT_GT(shown, 0);
    // Several words find rows by meaning: the memory rows the token reads or writes that hold lane 0's words.
    layers->findChild<QLineEdit*>("layerFilter")->setText("warp 0, lane 0");
    shown = 0;
    for (int r = 0; r < t->rowCount(); ++r)
        if (!t->isRowHidden(r)) {
            ++shown;
            EXPECT_TRUE(t->item(r, LayerView::What)->text().startsWith("mixer"));
            QStringList meanings = t->item(r, LayerView::Value)->data(LayerView::kMeaningsRole).toStringList();
            EXPECT_TRUE(meanings.filter("warp 0, lane 0").size() > 0) << meanings.join("; ").toStdString();
        }
    EXPECT_GT(shown, 0);
    // Once the launch has ended, no token goes in.
    window.debugger().run();
    window.debugger().waitIdle();
    EXPECT_EQ(layers->summary()->text(), "The launch has ended: no token goes in.");
    // A click on a token mid-step, from mid-step elsewhere, goes to exactly that token.
    window.debugger().reset();
    for (int i = 0; i < 3; ++i) window.debugger().stepToken();
    int fed = int(window.debugger().session().tokens().fed.size());
    size_t target = window.debugger().session().tokens().writtenAfterStep[2] + 2;  // inside step 4
    emit window.tokens()->itemClicked(window.tokens()->item(fed + int(target) - 1));
    window.debugger().waitIdle();
    EXPECT_EQ(window.debugger().session().tokens().writtenNow, target);
    EXPECT_EQ(window.debugger().session().position(), 3);
}

// The heatmap: heads grouped by meaning and found by a search; the rows the token going in writes are the
// trace's and are drawn outlined; rows are labelled with what the layout keeps there.
// The heatmap marks the rows the last move changed: a step that writes lane 1's r1 changes its row, the
// next step, which writes other registers, does not.
TEST(StudioModel, TheHeatmapMarksTheRowsTheLastMoveChanged) {
    ModelStudio studio("branches.qasm");
    ASSERT_FALSE(::testing::Test::HasFailure());
    MainWindow& window = studio.window;
    window.findChild<QDockWidget*>("Recurrent state")->raise();
    QApplication::processEvents();
    window.debugger().waitIdle();
    StateHeatmap& heat = *window.heatmap();
    std::vector<StateHeatmap::RowPlace> r1 = heat.rowsMeaning("warp 0 lane 1's r1");
    ASSERT_FALSE(r1.empty());
    heat.showRow(r1.front());
    EXPECT_TRUE(heat.rowsChanged().empty()) << "a head just picked has no moment before";
    window.debugger().step();  // sreg r1, tid.x: lane 1's r1 becomes 1
    window.debugger().waitIdle();
    QApplication::processEvents();
    std::vector<int> changed = heat.rowsChanged();
    EXPECT_NE(std::find(changed.begin(), changed.end(), r1.front().row), changed.end());
    window.debugger().step();  // low or high: r3
    window.debugger().waitIdle();
    QApplication::processEvents();
    changed = heat.rowsChanged();
    EXPECT_EQ(std::find(changed.begin(), changed.end(), r1.front().row), changed.end());
}

// The History panel's token column: the VAL record that carries each value, numbered as the Token stream
// numbers it; a click on it goes to the moment the model wrote it.
TEST(StudioModel, TheHistoryGivesTheTokenEachValueWasWrittenWith) {
    ModelStudio studio("branches.qasm");
    ASSERT_FALSE(::testing::Test::HasFailure());
    MainWindow& window = studio.window;
    window.debugger().run();
    window.debugger().waitIdle();
    HistoryView* history = window.history();
    QTableWidget* t = history->table();
    auto tokenAt = [&](int row) {
        std::shared_ptr<const DebugSnapshot> s = window.debugger().snapshot();
        size_t index = t->item(row, HistoryView::Token)->text().toULongLong();
        EXPECT_GE(index, s->tokens.fed.size());
        return QString::fromStdString(s->tokens.written.at(index - s->tokens.fed.size()));
    };
    history->followRegister(3, 4);  // thread 3's loop sum r4: 3, 5, 6 (slot 0 of the loop block)
    ASSERT_EQ(t->rowCount(), 3) << history->subject().toStdString();
    EXPECT_EQ(tokenAt(0), "VAL(s0,l3,k0,0x03.)");
    EXPECT_EQ(tokenAt(2), "VAL(s0,l3,k0,0x06.)");
    history->followGlobalWord(4);  // out[3] = 77, stored by slot 1 of `stop`
    ASSERT_EQ(t->rowCount(), 1);
    EXPECT_EQ(tokenAt(0), "VAL(s1,l3,k0,0x4d.)");
    size_t index = t->item(0, HistoryView::Token)->text().toULongLong();
    emit t->cellClicked(0, HistoryView::Token);
    window.debugger().waitIdle();
    std::shared_ptr<const DebugSnapshot> s = window.debugger().snapshot();
    EXPECT_EQ(s->tokens.fed.size() + s->tokens.writtenNow, index + 1) << "the moment that token was written";
    window.debugger().setBackend("reference");
    history->followGlobalWord(4);
    ASSERT_EQ(t->rowCount(), 0) << "at the start again";
    window.debugger().run();
    window.debugger().waitIdle();
    ASSERT_EQ(t->rowCount(), 1);
    EXPECT_EQ(t->item(0, HistoryView::Token)->text(), "") << "the interpreter writes no tokens";
    window.debugger().setBackend("model");
}

TEST(StudioModel, TheHeatmapGroupsItsHeadsAndOutlinesTheRowsTheTokenWrites) {
    ModelStudio studio("branches.qasm");
    ASSERT_FALSE(::testing::Test::HasFailure());
    MainWindow& window = studio.window;
    QApplication::processEvents();
    window.debugger().waitIdle();  // the trace the heatmap draws comes from the engine thread
    StateHeatmap& heat = *window.heatmap();
    ASSERT_GT(heat.layout().layers, 0);
    // Grouped: the ROM's heads first, the register files next; a search keeps the heads that match.
    std::vector<int> all = heat.headsMatching("");
    ASSERT_FALSE(all.empty());
    EXPECT_EQ(StateHeatmap::groupOf(heat.layout().memories[size_t(all.front())]), "ROM");
    std::vector<int> shared = heat.headsMatching("SHARED");
    EXPECT_EQ(shared.size(), 16u);
    for (int i : shared) EXPECT_EQ(heat.layout().memories[size_t(i)].rfind("shared", 0), 0u);
    EXPECT_EQ(heat.headsMatching("registers").size(), heat.headsMatching("regs_").size());
    EXPECT_TRUE(heat.headsMatching("no such memory").empty());
    // Search by meaning: where warp 0's lane 2 keeps r1 (its register bank, and the copies for reads).
    std::vector<StateHeatmap::RowPlace> found = heat.rowsMeaning("warp 0 lane 2's r1");
    ASSERT_FALSE(found.empty());
    for (const StateHeatmap::RowPlace& p : found) EXPECT_EQ(p.meaning, "warp 0, lane 2, r1");
    EXPECT_TRUE(std::any_of(found.begin(), found.end(), [&](const StateHeatmap::RowPlace& p) {
        return heat.layout().memories[size_t(p.layer * heat.layout().heads + p.head)] == "regs_a8" && p.row == 1;
    }));
    heat.showRow(found.front());
    EXPECT_EQ(heat.head().layer, found.front().layer);
    EXPECT_EQ(heat.head().rowLabels[size_t(found.front().row)], "warp 0, lane 2, r1");
    EXPECT_TRUE(heat.rowsMeaning("lane 2 r99").empty());
    // The History panel says where a followed register and a global word live, with their layers.
    HistoryView* history = window.history();
    history->followRegister(2, 1);  // warp 0, lane 2
    EXPECT_TRUE(history->place().contains("warp 0, lane 2, r1")) << history->place().toStdString();
    EXPECT_TRUE(history->place().contains("regs_a8 row 1 (layer ")) << history->place().toStdString();
    history->followGlobalWord(7);
    EXPECT_TRUE(history->place().contains("global0 row 7 (layer ")) << history->place().toStdString();
    window.debugger().setBackend("reference");
    history->followGlobalWord(7);
    EXPECT_EQ(history->place(), "") << "the interpreter has no recurrent state";
    window.debugger().setBackend("model");

    // A few steps in, the head whose rows the next token writes: the trace's rows, outlined in yellow.
    for (int n = 0; n < 3; ++n) window.debugger().step();
    TokenTrace trace;
    int layer = -1, head = -1;
    for (int token = 0; token < 12 && layer < 0; ++token) {  // a VAL writes a register
        if (token > 0) window.debugger().stepToken();
        window.debugger().waitIdle();  // the heatmap's trace comes from the engine thread
        trace = *window.debugger().trace();
        for (int l = 0; l < int(trace.layers.size()) && layer < 0; ++l)
            for (int h = 0; h < heat.layout().heads && layer < 0; ++h)
                if (!trace.layers[size_t(l)].rowsWritten[size_t(h)].empty() &&
                    StateHeatmap::groupOf(heat.layout().memories[size_t(l * heat.layout().heads + h)]) == "Registers") {
                    layer = l;
                    head = h;
                }
    }
    ASSERT_GE(layer, 0) << "the token " << trace.token << " writes no register row";
    heat.select(layer, head);
    EXPECT_EQ(heat.rowsWritten(), trace.layers[size_t(layer)].rowsWritten[size_t(head)]);
    EXPECT_EQ(heat.rowsRead(), trace.layers[size_t(layer)].rowsRead[size_t(head)]);
    ASSERT_FALSE(heat.rowsWritten().empty());
    EXPECT_NE(heat.head().rowLabels[size_t(heat.rowsWritten().front())].find("lane"), std::string::npos);
    auto* host = window.findChild<ImGuiHost*>("heatmapView");
    ASSERT_TRUE(host && host->isVisible());
    QElapsedTimer settle;  // the first-run layout sizes the panels after the window shows
    for (settle.start(); settle.elapsed() < 300;) QApplication::processEvents(QEventLoop::AllEvents, 20);
    QImage frame = host->grabFramebuffer();
    int yellow = 0;
    for (int y = 0; y < frame.height(); ++y)
        for (int x = 0; x < frame.width(); ++x) {
            QColor c = frame.pixelColor(x, y);
            if (c.red() > 200 && c.green() > 170 && c.blue() < 110) ++yellow;
        }
    EXPECT_GT(yellow, 20) << "no written row is outlined";
}

namespace {

void waitWhileBusy(ChatPanel& chat) {
    QElapsedTimer t;
    t.start();
    while (chat.busy() && t.elapsed() < 300000) QApplication::processEvents(QEventLoop::AllEvents, 50);
    ASSERT_FALSE(chat.busy()) << "the chat did not answer within 300 s";
}

// The window with the app's chat over the GPU model and no host checkpoint, shown at `size`.
struct ChatStudio {
    studio::ModelHolder model;
    MainWindow window;
    explicit ChatStudio(QSize size) {
        window.setChatEngine(std::make_unique<studio::StudioChat>(model, QGPU_SOURCE_DIR "/resources", ""));
        window.resize(size);
        window.show();
    }
};

}  // namespace

TEST(StudioChat, WithoutAHostTypedExpressionsRunOnTheGpuAndOpenInTheDebugger) {
    ChatStudio studio(QSize(1200, 800));
    MainWindow& window = studio.window;
    ChatPanel& chat = *window.chat();
    EXPECT_TRUE(chat.transcript().contains("No host checkpoint is loaded")) << chat.transcript().toStdString();
    EXPECT_TRUE(chat.transcript().contains("qgpu-studio --host DIR"));

    chat.send("[1, 2, 3] @ [4, 5, 6]");
    EXPECT_TRUE(chat.busy());  // the launch runs on the worker thread
    waitWhileBusy(chat);
    EXPECT_TRUE(chat.transcript().contains("GPU: = 32")) << chat.transcript().toStdString();
    ASSERT_EQ(chat.cards().size(), 1u);
    EXPECT_TRUE(chat.cards()[0].ok);
    EXPECT_EQ(chat.cards()[0].response, "32");
    EXPECT_NE(chat.cards()[0].details.find("op_dot"), std::string::npos);

    // The card opens its launch in the debugger, where the interpreter gives the same answer.
    chat.openCard(0);
    EXPECT_TRUE(window.editor()->text().contains("op_dot")) << window.editor()->text().toStdString();
    EXPECT_TRUE(window.debugger().session().loaded()) << window.statusText().toStdString();
    window.debugger().run();
    while (window.debugger().running()) QApplication::processEvents();
    EXPECT_TRUE(window.statusText().contains("finished")) << window.statusText().toStdString();
    EXPECT_TRUE(window.statusText().contains("out = [32]")) << window.statusText().toStdString();

    chat.send("[1, 2, 3] @ [4, 5]");
    waitWhileBusy(chat);
    ASSERT_EQ(chat.cards().size(), 2u);
    EXPECT_FALSE(chat.cards()[1].ok);
    EXPECT_NE(chat.cards()[1].response.find("shape mismatch"), std::string::npos) << chat.cards()[1].response;
}

// A host loads on the chat's worker thread behind a progress bar; the panel takes no message until it is
// loaded, then shows what was loaded (weights, device, memory) in its status line.
TEST(StudioChat, AHostLoadsBehindAProgressBarAndItsFiguresShowInTheStatusLine) {
    namespace fs = std::filesystem;
    fs::path dir = fs::temp_directory_path() / ("qgpu-studio-host-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    Qwen35Config config = qgpu::testing::tinyConfig({LayerType::LinearAttention, LayerType::FullAttention}, false, 259);
    Qwen35Model::random(config, 3)->save(dir.string(), DType::BF16);
    text::testing::TokenizerSpec spec;
    spec.added = {{256, "<|im_start|>", true}, {257, "<|im_end|>", true}, {258, "<|endoftext|>", true}};
    std::ofstream(dir / "tokenizer.json") << text::testing::tokenizerJson(spec).dump();

    studio::ModelHolder model;
    ChatHostOptions options;
    options.weights = WeightFormat::Q8;
    ChatPanel chat(std::make_unique<studio::StudioChat>(model, QGPU_SOURCE_DIR "/resources", dir.string(), options));
    chat.show();
    auto* bar = chat.findChild<QProgressBar*>("chatLoading");
    ASSERT_NE(bar, nullptr);
    EXPECT_TRUE(chat.busy());
    EXPECT_TRUE(bar->isVisible());
    EXPECT_FALSE(chat.findChild<QLineEdit*>("chatInput")->isEnabled());
    EXPECT_TRUE(chat.stateText().startsWith("loading the host checkpoint")) << chat.stateText().toStdString();
    waitWhileBusy(chat);
    EXPECT_FALSE(bar->isVisible());
    EXPECT_TRUE(chat.findChild<QLineEdit*>("chatInput")->isEnabled());
    EXPECT_FALSE(chat.transcript().contains("No host checkpoint")) << chat.transcript().toStdString();
    EXPECT_TRUE(chat.stateText().contains("Host: q8 weights on cpu, loaded in")) << chat.stateText().toStdString();
    EXPECT_TRUE(chat.stateText().contains("GiB resident")) << chat.stateText().toStdString();
    fs::remove_all(dir);
}

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QTemporaryDir settings;  // each test process starts from the first-run layout, and leaves the user's alone
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

namespace {

// Where a panel stands in the window and how much of it shows.
struct PanelPlace {
    bool floating = false, visible = false;
    Qt::DockWidgetArea area = Qt::NoDockWidgetArea;
    QSize size;
};
PanelPlace placeOf(MainWindow& w, const char* title) {
    auto* d = w.findChild<QDockWidget*>(title);
    if (!d) return {};
    return {d->isFloating(), d->isVisible(), w.dockWidgetArea(d), d->size()};
}

// Sends an expression, opens its card in the debugger and runs it there to the end.
void launchFromChat(MainWindow& window, const QString& expression) {
    ChatPanel& chat = *window.chat();
    chat.send(expression);
    waitWhileBusy(chat);
    ASSERT_FALSE(chat.cards().empty());
    chat.openCard(int(chat.cards().size()) - 1);
    window.debugger().run();
    window.debugger().waitIdle();
    QTest::qWait(50);  // the layout settles
    EXPECT_TRUE(window.statusText().contains("finished")) << window.statusText().toStdString();
}

}  // namespace

// A launch opened from the chat, then a second one, leave every panel where it was and as large: the chat
// stays docked, the registers keep their rows and the launch its arguments.
TEST(StudioChat, LaunchesOpenedFromTheChatKeepTheLayout) {
    ChatStudio studio(QSize(1280, 800));
    MainWindow& window = studio.window;
    QTest::qWait(50);
    EXPECT_EQ(window.size(), QSize(1280, 800)) << "the first layout grew the window";
    window.resetLayout();
    EXPECT_EQ(window.size(), QSize(1280, 800)) << "the default layout grew the window";
    window.findChild<QDockWidget*>("Chat")->raise();
    QTest::qWait(50);
    launchFromChat(window, "[1, 2, 3] @ [4, 5, 6]");
    std::map<std::string, PanelPlace> first;
    const char* panels[] = {"Chat", "Registers", "Launch", "Steps"};
    for (const char* p : panels) first[p] = placeOf(window, p);
    int argumentRows = window.launchPanel()->arguments()->viewport()->height();
    window.findChild<QDockWidget*>("Chat")->raise();
    launchFromChat(window, "[1, 2, 3, 4, 5, 6, 7, 8] * 3 + [8, 7, 6, 5, 4, 3, 2, 1]");
    for (const char* p : panels) {
        PanelPlace now = placeOf(window, p);
        EXPECT_FALSE(now.floating) << p;
        EXPECT_EQ(now.area, first[p].area) << p;
        EXPECT_EQ(now.size, first[p].size) << p;
    }
    EXPECT_EQ(window.launchPanel()->arguments()->viewport()->height(), argumentRows);
    EXPECT_EQ(window.size(), QSize(1280, 800));
    window.findChild<QDockWidget*>("Registers")->raise();
    QTest::qWait(50);
    QTableWidget* registers = window.registers()->table();
    EXPECT_GE(registers->viewport()->height(), 3 * registers->rowHeight(0)) << "the registers lost their rows";
}
