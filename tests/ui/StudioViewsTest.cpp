// Widget tests of the machine views beside the registers: the ROM as the backend holds it against the
// compiler's words, and shared memory per thread block. Against the reference interpreter, under xcb.
#include <gtest/gtest.h>
#include <imgui.h>

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QElapsedTimer>
#include <QLabel>
#include <QListWidget>
#include <QMenu>
#include <QTest>
#include <QTableWidget>

#include "StudioTestSupport.h"
#include "qgpu/core/Encoding.h"
#include "qgpu/core/Expression.h"
#include "qgpu/ui/BackendDiffView.h"
#include "qgpu/ui/ChatPanel.h"
#include "qgpu/ui/ImGuiHost.h"
#include "qgpu/ui/DivergenceTimeline.h"
#include "qgpu/ui/MainWindow.h"
#include "qgpu/ui/RomView.h"
#include "qgpu/ui/StateViews.h"
#include "qgpu/ui/StepListView.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

std::vector<std::vector<uint64_t>> compiledRom(MainWindow& w) {
    Program p = assemble(w.editor()->text().toStdString());
    LaunchSpec l = parseLaunchSpec(w.launchEditor()->toPlainText().toStdString());
    std::vector<std::vector<uint64_t>> out;
    for (const Block& b : linkLaunch(p, l).program.blocks) out.push_back(encodeBlock(b, 4));
    return out;
}

QString hex64(uint64_t w) { return QString("0x%1").arg(w, 16, 16, QChar('0')); }

// A chat engine that answers every message with one failed card: the message parsed, its error and caret.
class ParseErrorEngine : public ChatEngine {
public:
    std::string hostStatus() const override { return {}; }
    std::string send(const std::string& message, bool, const Callbacks& callbacks) override {
        ChatCard card;
        card.title = "gpu_eval: " + message;
        card.response = "expected ']' at column 7\n" + expr::pointAt(message, 7);
        callbacks.card(card);
        return {};
    }
};

// An ImGui viewer with one text field, focused on its first frame.
class TextFieldViewer : public ImGuiViewer {
public:
    const char* title() const override { return "text field"; }
    void draw() override {
        if (m_focus) ImGui::SetKeyboardFocusHere();
        m_focus = false;
        ImGui::InputText("##field", text, sizeof text);
    }
    char text[64] = "";

private:
    bool m_focus = true;
};

// A backend that misreads its input: the reference interpreter, with the first array's first word set to 100.
class MisreadingSession : public Session {
public:
    std::string backendName() const override { return "misreading"; }
    void load(const Program& program, const LaunchSpec& launch) override {
        LaunchSpec changed = launch;
        changed.args.front().values.front() = 100;
        m_in->load(program, changed);
    }
    bool loaded() const override { return m_in->loaded(); }
    void reset() override { m_in->reset(); }
    StopReason step() override { return m_in->step(); }
    StopReason stepBack() override { return m_in->stepBack(); }
    const MachineState& snapshot() const override { return m_in->snapshot(); }
    const std::vector<StepEvent>& history() const override { return m_in->history(); }
    int position() const override { return m_in->position(); }
    NextStep peek() const override { return m_in->peek(); }

private:
    std::unique_ptr<Session> m_in = makeReferenceSession();
};

}  // namespace

TEST(StudioRom, TheRomViewShowsEveryWordTheBackendHoldsAndWhereTheWarpsAre) {
    auto w = windowWithExample("dot_product.qasm");
    ASSERT_TRUE(w);
    RomView* rom = w->rom();
    std::vector<std::vector<uint64_t>> words = compiledRom(*w);
    ASSERT_EQ(words.size(), 2u);
    EXPECT_EQ(rom->differences(), 0);
    EXPECT_TRUE(rom->findChild<QLabel*>("romSummary")->text().contains("Every word is the compiler's"));
    for (size_t b = 0; b < words.size(); ++b)
        for (int s = 0; s < 5; ++s) {
            int row = rom->rowOf(int(b), s);
            ASSERT_GE(row, 0);
            EXPECT_TRUE(rom->table()->item(row, RomView::Held)->text().startsWith(hex64(words[b][size_t(s)])));
            EXPECT_EQ(rom->table()->item(row, RomView::Compiled)->text(), "same");
        }
    EXPECT_TRUE(rom->table()->item(rom->rowOf(0, 0), RomView::Instruction)->text().contains("sreg r1, tid.x"));
    EXPECT_TRUE(rom->table()->item(rom->rowOf(0, 4), RomView::Instruction)->text().contains("jmp"));
    EXPECT_EQ(rom->table()->item(rom->rowOf(0, 0), RomView::Warps)->text(), "w0: lanes 0 1 2");
    w->debugger().step();  // warp 0 runs block 0 and goes on to block 1
    EXPECT_EQ(rom->table()->item(rom->rowOf(0, 0), RomView::Warps)->text(), "");
    EXPECT_EQ(rom->table()->item(rom->rowOf(1, 0), RomView::Warps)->text(), "w0: lanes 0 1 2");
}

TEST(StudioRom, AWordTheBackendHoldsOtherwiseIsFlagged) {
    RomView view;
    std::vector<std::vector<uint64_t>> compiled = {{0x11, 0, 0, 0, 0x2000000003}, {0, 0, 0, 0, 0x4}};
    RomImage held{compiled, {0, 0}};
    held.words[1][4] ^= uint64_t(1) << 40;  // one bit of block 1's terminator
    view.setRom(held, compiled, "model");
    EXPECT_EQ(view.differences(), 1);
    QTableWidgetItem* item = view.table()->item(view.rowOf(1, 4), RomView::Compiled);
    EXPECT_EQ(item->text(), hex64(0x4));
    EXPECT_EQ(item->background().color(), QColor(255, 170, 170));
    EXPECT_EQ(view.table()->item(view.rowOf(0, 0), RomView::Compiled)->text(), "same");
    EXPECT_TRUE(view.findChild<QLabel*>("romSummary")->text().contains("1 word differs"));
    EXPECT_TRUE(view.findChild<QLabel*>("romSummary")->text().contains("decoded from its recurrent state"));
    EXPECT_TRUE(view.table()->item(view.rowOf(1, 4), RomView::Held)->toolTip().endsWith("0100"));
}

TEST(StudioRom, TheFieldsColumnSpellsTheWordsBits) {
    // op 3 with the immediate, rd 2, rs1 1, imm -1 (docs/isa.md's layout).
    uint64_t word = 3 | 1 << 6 | 2 << 7 | 1 << 11 | uint64_t(0xffffffff) << 32;
    EXPECT_EQ(romWordFields(word), "op 3 imm rd 2 rs1 1 rs2 0 rc 0 aux 0 #-1");
}

TEST(StudioShared, SharedMemoryShowsTheStepsThreadBlockWithTheKernelsNames) {
    MainWindow w;
    w.resize(1280, 800);
    w.show();
    ASSERT_TRUE(w.openProgram(QString(QGPU_SOURCE_DIR) + "/resources/kernels/tree_reduce.cu"))
        << w.statusText().toStdString();
    SharedMemoryView* shared = w.sharedMemory();
    QTableWidget* t = shared->table();
    EXPECT_EQ(t->rowCount(), 32);  // __shared__ int s[32]
    EXPECT_EQ(t->verticalHeaderItem(5)->text(), "s[5]");
    // Step until a step writes shared memory; the view shows that step's thread block, the written words
    // highlighted, every word the machine's.
    const StepEvent* wrote = nullptr;
    for (int n = 0; n < 200 && !wrote; ++n) {
        w.debugger().step();
        const StepEvent& last = w.debugger().session().history().back();
        for (const MemWrite& m : last.memWrites)
            if (m.space == MemSpace::Shared) wrote = &last;
    }
    ASSERT_TRUE(wrote);
    const MachineState& s = w.debugger().session().snapshot();
    EXPECT_EQ(shared->block(), wrote->cta);
    for (int a = 0; a < 32; ++a)
        EXPECT_EQ(t->item(a, 0)->text(), QString::number(int32_t(s.shared[size_t(wrote->cta)][size_t(a)])));
    for (const MemWrite& m : wrote->memWrites)
        if (m.space == MemSpace::Shared) EXPECT_EQ(t->item(m.addr, 0)->background().color(), QColor(255, 225, 120));
    // Another block on request; it stays picked while the debugger steps on.
    int other = 1 - wrote->cta;
    shared->setBlock(other);
    for (int a = 0; a < 32; ++a)
        EXPECT_EQ(t->item(a, 0)->text(), QString::number(int32_t(s.shared[size_t(other)][size_t(a)])));
    for (int n = 0; n < 8; ++n) w.debugger().step();
    EXPECT_EQ(shared->block(), other);
}

TEST(StudioShared, AKernelWithoutSharedMemorySaysSo) {
    auto w = windowWithExample("dot_product.cu");
    ASSERT_TRUE(w);
    EXPECT_EQ(w->sharedMemory()->table()->rowCount(), 0);
    EXPECT_TRUE(w->sharedMemory()->findChild<QLabel*>()->text().contains("no shared memory"));
}

TEST(StudioExamples, TheKernelSuiteMenuListsEveryKernelOnceUnderItsTopic) {
    MainWindow w;
    QMenu* suite = nullptr;
    for (QMenu* m : w.findChildren<QMenu*>())
        if (m->title() == "Kernel suite") suite = m;
    ASSERT_TRUE(suite);
    QStringList topics, kernels;
    for (QAction* a : suite->actions()) {
        ASSERT_TRUE(a->menu()) << "a kernel outside a topic: " << a->text().toStdString();
        topics << a->menu()->title();
        for (QAction* k : a->menu()->actions()) kernels << k->text();
    }
    EXPECT_FALSE(topics.contains("Other")) << "resources/kernel-topics.json misses a kernel";
    EXPECT_TRUE(topics.contains("Shared memory and barriers"));
    QDir dir(QString(QGPU_SOURCE_DIR) + "/resources/kernels");
    QStringList files = dir.entryList({"*.cu"}, QDir::Files, QDir::Name);
    kernels.sort();
    EXPECT_EQ(kernels, files) << "every suite kernel once";
}

TEST(StudioTimeline, EveryLaneIsDrawnByWhatItDidAtEachStep) {
    auto w = windowWithExample("branches.qasm");
    ASSERT_TRUE(w);
    w->debugger().run();
    w->debugger().waitIdle();
    DivergenceTimeline* tl = w->timeline();
    const std::vector<StepEvent>& history = w->debugger().session().history();
    ASSERT_EQ(tl->steps(), int(history.size()));
    int lanes = w->debugger().session().snapshot().lanesPerWarp, waiting = 0, exited = 0;
    std::vector<LaneStatus> status(w->debugger().session().snapshot().threads.size(), LaneStatus::Live);
    for (size_t i = 0; i < history.size(); ++i) {
        const StepEvent& ev = history[i];
        for (int t = 0; t < int(status.size()); ++t) {
            using S = DivergenceTimeline::LaneState;
            S got = tl->laneState(int(i), t);
            int lane = t % lanes;
            if (t / lanes == ev.warp && (ev.maskBefore >> lane & 1))
                EXPECT_EQ(got, S::Active) << "step " << i << " thread " << t;
            else if (t / lanes == ev.warp && (ev.liveBefore >> lane & 1))
                EXPECT_EQ(got, S::Waiting) << "step " << i << " thread " << t;
            else if (status[size_t(t)] == LaneStatus::Exited)
                EXPECT_EQ(got, S::Exited) << "step " << i << " thread " << t;
            waiting += got == S::Waiting;
            exited += got == S::Exited;
        }
        for (const LaneChange& c : ev.laneChanges) status[size_t(c.thread)] = c.statusAfter;
    }
    EXPECT_GT(waiting, 0) << "branches.qasm diverges";
    EXPECT_GT(exited, 0);
}

TEST(StudioTimeline, AClickOnAColumnMovesTheDebuggerToThatStep) {
    auto w = windowWithExample("branches.qasm");
    ASSERT_TRUE(w);
    w->debugger().run();
    w->debugger().waitIdle();
    auto* host = w->findChild<ImGuiHost*>("timelineView");
    ASSERT_TRUE(host);
    ASSERT_TRUE(host->isVisible());
    // The first-run layout sizes the panels after the window shows: wait until the panel keeps its size.
    QSize settled;
    for (int tries = 0; tries < 40 && host->size() != settled; ++tries) {
        settled = host->size();
        QTest::qWait(50);
    }
    host->grabFramebuffer();  // a frame lays the grid out
    QPoint at(int(w->timeline()->columnCentre(2)), int(w->timeline()->rowCentre(0)));
    ASSERT_TRUE(host->rect().contains(at)) << at.x() << "," << at.y();
    // Each input reaches ImGui in the frame after it is delivered.
    QString before = w->statusText();
    QTest::mouseMove(host, at);
    QApplication::processEvents();
    host->grabFramebuffer();
    QTest::mousePress(host, Qt::LeftButton, {}, at);
    QApplication::processEvents();
    host->grabFramebuffer();
    QTest::mouseRelease(host, Qt::LeftButton, {}, at);
    QApplication::processEvents();
    host->grabFramebuffer();
    // The move starts after the frame that saw the click, runs as a job, and says where it stopped.
    EXPECT_TRUE(QTest::qWaitFor([&] { return w->statusText() != before; }, 5000));
    w->debugger().waitIdle();
    EXPECT_EQ(w->debugger().session().position(), 3);
}

// Where two backends part, the diff shows both machines side by side, the differing cells marked on each.
TEST(StudioDiff, TheMachinesWhereTwoBackendsPartAreShownSideBySide) {
    auto w = windowWithExample("dot_product.qasm");
    ASSERT_TRUE(w);
    w->debugger().addBackend("misreading", [] { return std::make_unique<MisreadingSession>(); });
    ASSERT_TRUE(w->debugger().compareBackends());
    w->debugger().waitIdle();
    ASSERT_TRUE(w->diff()->item(0)->text().contains("first differ at step"))
        << w->diff()->item(0)->text().toStdString();
    BackendDiffView* view = w->diffView();
    EXPECT_TRUE(
        view->findChild<QLabel*>("diffTitle")->text().contains("reference on the left, misreading on the right"));
    // The memory: a[0] is 1 on the reference and 100 on the other, marked; b[0] agrees.
    QTableWidget* mem = view->memory();
    int a0 = -1, b0 = -1;
    for (int r = 0; r < mem->rowCount(); ++r) {
        if (mem->item(r, 0)->text() == "a[0]") a0 = r;
        if (mem->item(r, 0)->text() == "b[0]") b0 = r;
    }
    ASSERT_GE(a0, 0);
    ASSERT_GE(b0, 0);
    EXPECT_EQ(mem->item(a0, 1)->text(), "1");
    EXPECT_EQ(mem->item(a0, 2)->text(), "100");
    EXPECT_EQ(mem->item(a0, 1)->background().color(), QColor(255, 160, 160));
    EXPECT_EQ(mem->item(b0, 1)->background().style(), Qt::NoBrush);
    // The registers: both tables the same shape; each cell that differs is marked on both sides, and only those.
    QTableWidget *left = view->registers(0), *right = view->registers(1);
    ASSERT_EQ(left->rowCount(), right->rowCount());
    ASSERT_GT(left->rowCount(), 0);
    int marked = 0;
    for (int r = 0; r < left->rowCount(); ++r)
        for (int c = 2; c < left->columnCount(); ++c) {
            bool differs = left->item(r, c)->text() != right->item(r, c)->text();
            EXPECT_EQ(left->item(r, c)->background().style() != Qt::NoBrush, differs) << r << "," << c;
            EXPECT_EQ(right->item(r, c)->background().style() != Qt::NoBrush, differs) << r << "," << c;
            marked += differs;
        }
    EXPECT_EQ(marked, view->differingCells());
    // A new comparison that agrees puts the verdict back alone.
    ASSERT_TRUE(w->openProgram(kExamples + "branches.qasm"));
    EXPECT_EQ(view->registers(0)->rowCount(), 0);
}

// An error card's caret stands under the column the error names, not under the first character.
TEST(StudioChatCard, AnErrorsCaretStandsUnderItsColumn) {
    ChatPanel chat(std::make_unique<ParseErrorEngine>());
    chat.show();
    chat.send("[1, 2 3]");
    QElapsedTimer t;
    for (t.start(); chat.busy() && t.elapsed() < 10000;) QApplication::processEvents(QEventLoop::AllEvents, 20);
    ASSERT_FALSE(chat.busy());
    QStringList lines = chat.transcript().split('\n');
    int expression = -1;
    for (int i = 0; i < lines.size(); ++i)
        if (lines[i].endsWith("  [1, 2 3]")) expression = i;
    ASSERT_GE(expression, 0) << chat.transcript().toStdString();
    ASSERT_LT(expression + 1, lines.size());
    QString caret = lines[expression + 1];
    int start = int(lines[expression].indexOf("[1, 2 3]"));
    EXPECT_EQ(caret.indexOf('^'), start + 6) << chat.transcript().toStdString();  // column 7: the '3'
}

// Typing reaches an ImGui text field (the heatmap's search box is one), even a key pressed and released
// before a frame could see it down; Ctrl+V pastes the desktop's clipboard.
TEST(StudioImGui, TypingReachesAnImGuiTextField) {
    TextFieldViewer viewer;
    ImGuiHost host(&viewer);
    host.resize(300, 120);
    host.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&host));
    host.setFocus();
    host.grabFramebuffer();  // the field takes the keyboard
    host.grabFramebuffer();
    QTest::keyClicks(&host, "regs_b");
    host.grabFramebuffer();
    EXPECT_STREQ(viewer.text, "regs_b");
    QTest::keyClick(&host, Qt::Key_Backspace);  // down and up before the next frame
    host.grabFramebuffer();
    host.grabFramebuffer();
    EXPECT_STREQ(viewer.text, "regs_");
    QApplication::clipboard()->setText("a3");
    QTest::keyClick(&host, Qt::Key_V, Qt::ControlModifier);
    host.grabFramebuffer();
    host.grabFramebuffer();
    EXPECT_STREQ(viewer.text, "regs_a3");
}

TEST(StudioMemory, EachArrayShowsItsElementsInItsType) {
    LaunchSpec launch =
        parseLaunchSpec(R"({"block": 1, "args": [{"name": "m", "type": "bool", "array": [true, false, true]},
        {"name": "h", "type": "i16", "array": [-2, 300, 7]}, {"name": "x", "type": "float", "array": [1.5]}]})");
    MemoryMap map = validateLaunch(launch, MachineSpec::standard());
    MachineState state;
    state.global.assign(16, 0);
    for (const KernelArg& a : launch.args) {
        std::vector<int32_t> words = packElements(a.values, a.type);
        for (size_t i = 0; i < words.size(); ++i) state.global[size_t(map.find(a.name)->base) + i] = uint32_t(words[i]);
    }
    MemoryView view;
    view.show(state, map, nullptr);
    QTableWidget* t = view.table();
    ASSERT_EQ(t->rowCount(), 7);  // one row per element, not per word
    auto text = [&](int row, int column) { return t->item(row, column)->text(); };
    EXPECT_EQ(t->verticalHeaderItem(1)->text(), "m[1]");
    EXPECT_EQ(text(0, 1), "true");
    EXPECT_EQ(text(1, 1), "false");
    EXPECT_EQ(text(2, 0), "1 byte 2");  // word 0 is null
    EXPECT_EQ(text(3, 1), "-2");
    EXPECT_EQ(text(3, 2), "0xfffe");
    EXPECT_EQ(text(4, 0), "2 byte 2");
    EXPECT_EQ(text(4, 1), "300");
    EXPECT_EQ(text(6, 1), "1.5");
    view.setFormat(NumberFormat::Unsigned);
    EXPECT_EQ(text(3, 1), "65534");
}

TEST(ReachedRowsTest, OnlyTheRowsThatChangeSideAreRestyledAndARefilledListStartsOver) {
    QListWidget list;
    auto fill = [&](int n) {
        for (int i = 0; i < n; ++i) {
            auto* row = new QListWidgetItem(QString::number(i));
            if (i == 1) row->setForeground(QColor(120, 120, 120));  // a fed token's grey
            list.addItem(row);
        }
    };
    auto italics = [&] {
        QString out;
        for (int i = 0; i < list.count(); ++i) out += list.item(i)->font().italic() ? "i" : ".";
        return out;
    };
    fill(6);
    ReachedRows reached;
    reached.show(&list, 6);
    EXPECT_EQ(italics(), "......");
    reached.show(&list, 1);
    EXPECT_EQ(italics(), ".iiiii");
    EXPECT_EQ(list.item(1)->foreground().color(), QColor(175, 175, 175));
    reached.show(&list, 4);
    EXPECT_EQ(italics(), "....ii");
    EXPECT_EQ(list.item(1)->foreground().color(), QColor(120, 120, 120)) << "its own colour back";
    fill(2);  // rows added ahead of the moment
    reached.show(&list, 4);
    EXPECT_EQ(italics(), "....iiii");
    list.clear();  // refilled with as many rows: none styled yet
    fill(8);
    reached.show(&list, 7);
    EXPECT_EQ(italics(), ".......i");
}
