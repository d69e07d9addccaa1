// Widget tests of the studio's IDE habits: the layout at common screen sizes, the View menu, the document
// (modified marker, Save, Save As, the prompt on unsaved edits), rebuilding before a run, breakpoints on
// lines without code, and the window's shortcuts against the editor's.
#include <gtest/gtest.h>

#include <Qsci/qsciscintilla.h>

#include <QAbstractButton>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QSpinBox>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>

#include "StudioTestSupport.h"
#include "qgpu/ui/BackendDiffView.h"
#include "qgpu/ui/MainWindow.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

constexpr unsigned kBreakpointMask = 1u << 1;  // the editor's breakpoint marker

// A shown window of the given size with an example open, its default layout applied.
std::unique_ptr<MainWindow> windowAt(int width, int height, const QString& example = "dot_product.cu") {
    auto w = std::make_unique<MainWindow>();
    w->resize(width, height);
    w->show();
    w->activateWindow();  // shortcuts go to the active window
    EXPECT_TRUE(QTest::qWaitForWindowActive(w.get()));
    QTest::qWait(50);  // the first-run layout settles
    w->resetLayout();
    QTest::qWait(50);
    EXPECT_TRUE(w->openProgram(kExamples + example)) << w->statusText().toStdString();
    return w;
}

// Presses a key in the editor of the active window (the window's shortcuts need it active: on a busy machine
// it may not be yet); false when the window does not become active.
bool pressInEditor(MainWindow& w, Qt::Key key, Qt::KeyboardModifiers modifiers = Qt::NoModifier) {
    w.activateWindow();
    if (!QTest::qWaitForWindowActive(&w)) return false;
    w.editor()->setFocus();
    QTest::keyClick(w.editor(), key, modifiers);
    return true;
}

int editorColumns(const MainWindow& w) {
    QsciScintilla* e = w.editor();
    int text = e->viewport()->width() - e->marginWidth(0) - e->marginWidth(1) - e->marginWidth(2);
    return text / QFontMetrics(e->font()).horizontalAdvance('M');
}

int editorLines(const MainWindow& w) {
    return w.editor()->viewport()->height() / QFontMetrics(w.editor()->font()).lineSpacing();
}

// Answers the next modal message box with `button` once it shows; `asked` says whether one did.
void answerNextMessageBox(QMessageBox::StandardButton button, bool* asked) {
    QTimer::singleShot(0, [button, asked] {
        auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        if (!box) return;
        *asked = true;
        box->button(button)->click();
    });
}

// The example's source and launch copied into a folder the test may write.
QString copyOfExample(const QTemporaryDir& dir, const QString& name) {
    for (const char* ext : {".cu", ".json"}) QFile::copy(kExamples + name + ext, dir.filePath(name + ext));
    return dir.filePath(name + ".cu");
}

QString fileText(const QString& path) {
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? QString::fromUtf8(f.readAll()) : QString();
}

}  // namespace

TEST(StudioLayout, TheEditorKeeps80ColumnsAt1280x800AndTheLaunchShowsEveryArgument) {
    auto w = windowAt(1280, 800, "../kernels/tree_reduce.cu");
    EXPECT_GE(editorColumns(*w), 80);
    EXPECT_GE(editorLines(*w), 20);
    QTableWidget* args = w->launchPanel()->arguments();
    ASSERT_EQ(args->rowCount(), 2);
    EXPECT_LE(args->rowViewportPosition(1) + args->rowHeight(1), args->viewport()->height())
        << "the second argument is cut off";
    for (const char* panel : {"Launch", "Registers", "Steps", "Warp divergence"}) {
        auto* d = w->findChild<QDockWidget*>(panel);
        ASSERT_TRUE(d) << panel;
        EXPECT_TRUE(d->isVisible()) << panel;
        EXPECT_GE(d->width(), 300) << panel;
        EXPECT_GE(d->height(), 150) << panel;
    }
}

TEST(StudioLayout, TheEditorStaysUsableAt1024x700) {
    auto w = windowAt(1024, 700);
    w->resize(1024, 700);  // the first layout may leave it a few pixels taller for a moment
    QTest::qWait(50);
    EXPECT_EQ(w->size(), QSize(1024, 700)) << "the panels' minimum sizes must not hold the window larger";
    EXPECT_GE(editorColumns(*w), 60);
    EXPECT_GE(editorLines(*w), 15);
    for (const char* panel : {"Registers", "Steps"})
        EXPECT_GE(w->findChild<QDockWidget*>(panel)->width(), 250) << panel;
}

TEST(StudioLayout, TheViewMenuReopensEveryPanelAndResetsTheLayout) {
    auto w = windowAt(1280, 800);
    auto* view = w->findChild<QMenu*>("viewMenu");
    ASSERT_TRUE(view);
    QList<QDockWidget*> docks = w->findChildren<QDockWidget*>();
    ASSERT_GE(docks.size(), 10);
    for (QDockWidget* d : docks) {
        ASSERT_TRUE(view->actions().contains(d->toggleViewAction())) << d->windowTitle().toStdString();
        d->close();
        ASSERT_FALSE(d->isVisible());
        d->toggleViewAction()->trigger();
        EXPECT_TRUE(d->isVisible()) << d->windowTitle().toStdString();
    }
    docks.front()->close();
    docks.back()->setFloating(true);
    auto* reset = w->findChild<QAction*>("resetLayoutAction");
    ASSERT_TRUE(reset);
    reset->trigger();
    QApplication::processEvents();
    for (QDockWidget* d : docks) {
        EXPECT_TRUE(d->isVisible()) << d->windowTitle().toStdString();
        EXPECT_FALSE(d->isFloating()) << d->windowTitle().toStdString();
    }
    EXPECT_GE(editorColumns(*w), 80);
}

TEST(StudioLayout, TheLayoutIsRestoredOnTheNextRun) {
    {
        auto w = windowAt(1280, 800);
        w->findChild<QDockWidget*>("Memory")->close();
        ASSERT_TRUE(w->close());
    }
    MainWindow again;
    again.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&again));
    QApplication::processEvents();
    EXPECT_FALSE(again.findChild<QDockWidget*>("Memory")->isVisible());
    EXPECT_TRUE(again.findChild<QDockWidget*>("Registers")->isVisible());
    EXPECT_EQ(again.width(), 1280);
    EXPECT_NEAR(again.height(), 800, 10);  // the frame may be counted apart
}

TEST(StudioDocument, EditsMarkTheWindowAndSaveWritesSourceAndLaunch) {
    QTemporaryDir dir;
    auto w = windowAt(1280, 800);
    ASSERT_TRUE(w->openProgram(copyOfExample(dir, "dot_product")));
    EXPECT_FALSE(w->isWindowModified());
    EXPECT_TRUE(w->windowTitle().contains("dot_product.cu"));
    w->editor()->insertAt("// edited\n", 0, 0);
    EXPECT_TRUE(w->isWindowModified());
    ASSERT_TRUE(w->save());
    EXPECT_FALSE(w->isWindowModified());
    EXPECT_TRUE(fileText(dir.filePath("dot_product.cu")).startsWith("// edited\n"));
    QString launchBefore = fileText(dir.filePath("dot_product.json"));
    EXPECT_EQ(launchBefore, fileText(kExamples + "dot_product.json")) << "an unedited launch is left as it was";

    w->launchPanel()->blockBox(0)->setValue(2);
    EXPECT_TRUE(w->isWindowModified());
    ASSERT_TRUE(w->save());
    EXPECT_FALSE(w->isWindowModified());
    EXPECT_EQ(fileText(dir.filePath("dot_product.json")), w->launchPanel()->text());
    EXPECT_NE(fileText(dir.filePath("dot_product.json")), launchBefore);
}

TEST(StudioDocument, SaveAsWritesBothFilesAtTheNewPlace) {
    QTemporaryDir dir;
    auto w = windowAt(1280, 800);
    w->editor()->insertAt("// mine\n", 0, 0);
    ASSERT_TRUE(w->saveAs(dir.filePath("mine.cu")));
    EXPECT_EQ(w->filePath(), dir.filePath("mine.cu"));
    EXPECT_TRUE(w->windowTitle().contains("mine.cu"));
    EXPECT_FALSE(w->isWindowModified());
    EXPECT_TRUE(fileText(dir.filePath("mine.cu")).startsWith("// mine\n"));
    EXPECT_EQ(fileText(dir.filePath("mine.json")), w->launchPanel()->text());
    EXPECT_FALSE(fileText(kExamples + "dot_product.cu").startsWith("// mine")) << "the example is untouched";
}

TEST(StudioDocument, SaveToAnUnwritablePlaceSaysSoAndKeepsTheEdits) {
    auto w = windowAt(1280, 800);
    w->editor()->insertAt("// mine\n", 0, 0);
    EXPECT_FALSE(w->saveAs("/nonexistent-folder/mine.cu"));
    EXPECT_TRUE(w->statusText().contains("Cannot write /nonexistent-folder/mine.cu")) << w->statusText().toStdString();
    EXPECT_TRUE(w->isWindowModified());
}

TEST(StudioDocument, OpeningAnotherFileAsksAboutUnsavedEdits) {
    QTemporaryDir dir;
    auto w = windowAt(1280, 800);
    ASSERT_TRUE(w->openProgram(copyOfExample(dir, "dot_product")));
    w->editor()->insertAt("// unsaved\n", 0, 0);

    bool asked = false;
    answerNextMessageBox(QMessageBox::Cancel, &asked);
    EXPECT_FALSE(w->openProgram(kExamples + "dot_product.qasm"));
    EXPECT_TRUE(asked);
    EXPECT_TRUE(w->editor()->text().startsWith("// unsaved"));

    asked = false;
    answerNextMessageBox(QMessageBox::Save, &asked);
    EXPECT_TRUE(w->openProgram(kExamples + "dot_product.qasm"));
    EXPECT_TRUE(asked);
    EXPECT_TRUE(fileText(dir.filePath("dot_product.cu")).startsWith("// unsaved"));

    w->editor()->insertAt("; unsaved\n", 0, 0);
    asked = false;
    answerNextMessageBox(QMessageBox::Discard, &asked);
    EXPECT_TRUE(w->openProgram(kExamples + "dot_product.cu"));
    EXPECT_TRUE(asked);
    EXPECT_FALSE(fileText(kExamples + "dot_product.qasm").startsWith("; unsaved"));
}

TEST(StudioDocument, ClosingAsksAboutUnsavedEditsAndCancelKeepsTheWindow) {
    auto w = windowAt(1280, 800);
    w->editor()->insertAt("// unsaved\n", 0, 0);
    bool asked = false;
    answerNextMessageBox(QMessageBox::Cancel, &asked);
    EXPECT_FALSE(w->close());
    EXPECT_TRUE(asked);
    EXPECT_TRUE(w->isVisible());
    answerNextMessageBox(QMessageBox::Discard, &asked);
    EXPECT_TRUE(w->close());
}

TEST(StudioDocument, QuitIsInTheFileMenu) {
    auto w = windowAt(1280, 800);
    QAction* quit = nullptr;
    for (QAction* a : w->findChildren<QAction*>())
        if (a->shortcut() == QKeySequence(QKeySequence::Quit)) quit = a;
    ASSERT_TRUE(quit);
    quit->trigger();
    EXPECT_FALSE(w->isVisible());
}

TEST(StudioRebuild, RunAfterAnEditRunsTheEditedKernel) {
    auto w = windowAt(1280, 800);
    int line = 4;  // atomicAdd(&out[0], a[i] * b[i]);
    ASSERT_TRUE(w->editor()->text(line).contains("a[i] * b[i]"));
    w->editor()->setSelection(line, 0, line, w->editor()->lineLength(line));
    w->editor()->replaceSelectedText("    atomicAdd(&out[0], a[i] + b[i]);\n");
    ASSERT_TRUE(pressInEditor(*w, Qt::Key_F5));
    w->debugger().waitIdle();
    EXPECT_TRUE(w->statusText().contains("out = [21]")) << w->statusText().toStdString();
    EXPECT_TRUE(w->statusText().contains("built again first")) << w->statusText().toStdString();
}

TEST(StudioRebuild, StepAfterALaunchEditRebuildsWithTheNewLaunch) {
    auto w = windowAt(1280, 800);
    w->launchPanel()->blockBox(0)->setValue(1);  // one thread: out = 1 * 4
    w->debugger().step();
    EXPECT_TRUE(w->statusText().contains("built again first")) << w->statusText().toStdString();
    w->debugger().run();
    w->debugger().waitIdle();
    EXPECT_TRUE(w->statusText().contains("out = [4]")) << w->statusText().toStdString();
}

TEST(StudioBreakpoints, ABreakpointOnALineWithoutCodeMovesToTheNextLineWithCode) {
    auto w = windowAt(1280, 800, "../kernels/tree_reduce.cu");
    int pragma = 6;  // "#pragma unroll 1", before the loop
    ASSERT_TRUE(w->editor()->text(pragma).startsWith("#pragma"));
    w->toggleBreakpoint(pragma);
    EXPECT_EQ(w->editor()->markersAtLine(pragma) & kBreakpointMask, 0u);
    int moved = w->editor()->markerFindNext(0, kBreakpointMask);
    EXPECT_EQ(moved, pragma + 1);
    EXPECT_TRUE(w->statusText().contains(QString("the breakpoint is on line %1").arg(moved + 1)))
        << w->statusText().toStdString();
    w->debugger().run();
    w->debugger().waitIdle();
    EXPECT_TRUE(w->statusText().contains("stopped at a breakpoint")) << w->statusText().toStdString();

    w->toggleBreakpoint(w->editor()->lines() - 1);  // after the closing brace
    EXPECT_TRUE(w->statusText().contains("nor does any line after it")) << w->statusText().toStdString();
}

TEST(StudioBreakpoints, ABuildMovesBreakpointsOffLinesThatLostTheirCode) {
    auto w = windowAt(1280, 800);
    int line = 4;  // atomicAdd(&out[0], a[i] * b[i]);
    w->toggleBreakpoint(line);
    ASSERT_NE(w->editor()->markersAtLine(line) & kBreakpointMask, 0u);
    // The breakpoint's line becomes a comment and the code moves to the next line.
    w->editor()->setSelection(line, 0, line, w->editor()->lineLength(line) - 1);
    w->editor()->replaceSelectedText("    // the sum:");
    w->editor()->insertAt("\n    atomicAdd(&out[0], a[i] * b[i]);", line, w->editor()->lineLength(line) - 1);
    ASSERT_NE(w->editor()->markersAtLine(line) & kBreakpointMask, 0u);
    ASSERT_TRUE(w->build());
    EXPECT_EQ(w->editor()->markersAtLine(line) & kBreakpointMask, 0u);
    EXPECT_NE(w->editor()->markersAtLine(line + 1) & kBreakpointMask, 0u);
    EXPECT_TRUE(w->statusText().contains("moved: 5 to 6")) << w->statusText().toStdString();
}

TEST(StudioShortcuts, CtrlDComparesBackendsAndTheEditorKeepsItsText) {
    auto w = windowAt(1280, 800);
    QString before = w->editor()->text();
    ASSERT_TRUE(pressInEditor(*w, Qt::Key_D, Qt::ControlModifier));
    EXPECT_EQ(w->editor()->text(), before) << "the editor duplicated the line";
    EXPECT_TRUE(w->statusText().contains("nothing to compare")) << w->statusText().toStdString();
}

TEST(StudioShortcuts, TabIndentsInTheEditorAndCtrlTabLeavesIt) {
    auto w = windowAt(1280, 800);
    QString before = w->editor()->text();
    ASSERT_TRUE(pressInEditor(*w, Qt::Key_Tab));
    EXPECT_NE(w->editor()->text(), before) << "Tab did not indent";
    EXPECT_TRUE(w->editor()->hasFocus());
    QTest::keyClick(w->editor(), Qt::Key_Tab, Qt::ControlModifier);
    EXPECT_FALSE(w->editor()->hasFocus()) << "Ctrl+Tab kept the focus in the editor";
    ASSERT_TRUE(pressInEditor(*w, Qt::Key_Backtab, Qt::ControlModifier | Qt::ShiftModifier));
    EXPECT_FALSE(w->editor()->hasFocus()) << "Ctrl+Shift+Tab kept the focus in the editor";
}

TEST(StudioShortcuts, ThePanelWithTheFocusHasItsTitleBarHighlighted) {
    auto w = windowAt(1280, 800);
    ASSERT_TRUE(pressInEditor(*w, Qt::Key_End));
    EXPECT_EQ(w->focusedPanel(), "") << "the editor is no panel";
    QTest::keyClick(w->editor(), Qt::Key_Tab, Qt::ControlModifier);
    QString first = w->focusedPanel();
    ASSERT_NE(first, "") << "Ctrl+Tab left the editor for no panel";
    auto* dock = w->findChild<QDockWidget*>(first);
    ASSERT_TRUE(dock);
    EXPECT_TRUE(dock->styleSheet().contains("palette(highlight)")) << dock->styleSheet().toStdString();
    ASSERT_NE(first, "Steps");
    w->findChild<QDockWidget*>("Steps")->raise();
    w->events()->setFocus();
    EXPECT_EQ(w->focusedPanel(), "Steps");
    EXPECT_EQ(dock->styleSheet(), "") << "only the panel with the focus has the ring";
}

TEST(StudioShortcuts, ToolbarTooltipsNameTheirShortcuts) {
    auto w = windowAt(1280, 800);
    auto* bar = w->findChild<QToolBar*>("debugToolbar");
    ASSERT_TRUE(bar);
    int withShortcut = 0;
    for (QAction* a : bar->actions()) {
        if (a->shortcut().isEmpty()) continue;
        ++withShortcut;
        EXPECT_TRUE(a->toolTip().contains(a->shortcut().toString(QKeySequence::NativeText)))
            << a->toolTip().toStdString();
    }
    EXPECT_GE(withShortcut, 8);
}

TEST(StudioStatus, TheStatusLineCountsStepsAsTheStepListDoes) {
    auto w = windowAt(1280, 800);
    w->debugger().step();
    w->debugger().step();
    EXPECT_TRUE(w->statusText().startsWith("after step 1")) << w->statusText().toStdString();
    EXPECT_TRUE(w->events()->currentItem()->text().startsWith("step 1:"))
        << w->events()->currentItem()->text().toStdString();
    w->debugger().reset();
    EXPECT_TRUE(w->statusText().startsWith("At the start")) << w->statusText().toStdString();
}

TEST(StudioStatus, AFinishedLaunchIsCheckedAgainstTheExpectColumnInOneShortLine) {
    auto w = windowAt(1280, 800, "../kernels/tree_reduce.cu");
    w->debugger().run();
    w->debugger().waitIdle();
    EXPECT_TRUE(w->statusText().contains("Every expected array matches")) << w->statusText().toStdString();
    EXPECT_TRUE(w->statusText().contains("(32 values)"))
        << "a long array is cut short: " << w->statusText().toStdString();
    EXPECT_LT(w->statusText().size(), 200);

    QTableWidget* args = w->launchPanel()->arguments();
    ASSERT_EQ(args->item(1, LaunchPanel::Name)->text(), "out");
    args->item(1, LaunchPanel::Expect)->setText("-3, 7");
    w->debugger().run();
    w->debugger().waitIdle();
    EXPECT_TRUE(w->statusText().contains("NOT AS EXPECTED: out[1] = -5, expected 7")) << w->statusText().toStdString();
}

TEST(StudioSteps, StepsNotReachedAreDimmedAndOneClickMovesThere) {
    auto w = windowAt(1280, 800, "../kernels/tree_reduce.cu");
    for (int n = 0; n < 3; ++n) w->debugger().step();
    w->debugger().stepBack();
    w->debugger().stepBack();
    QListWidget* steps = w->events();
    ASSERT_EQ(steps->count(), 3);
    EXPECT_FALSE(steps->item(0)->font().italic());
    EXPECT_TRUE(steps->item(1)->font().italic());
    EXPECT_TRUE(steps->item(2)->font().italic());
    QRect r = steps->visualItemRect(steps->item(2));
    QTest::mouseClick(steps->viewport(), Qt::LeftButton, {}, r.center());
    w->debugger().waitIdle();
    EXPECT_EQ(w->debugger().session().position(), 3);
    EXPECT_FALSE(steps->item(2)->font().italic());
}

TEST(StudioSteps, AnExitedLaneShowsNoPc) {
    auto w = windowAt(1280, 800);
    w->debugger().run();
    w->debugger().waitIdle();
    QTableWidget* regs = w->registers()->table();
    for (int lane = 0; lane < 3; ++lane) {
        EXPECT_EQ(regs->item(lane, 1)->text(), "exited");
        EXPECT_EQ(regs->item(lane, 0)->text(), "-");
        EXPECT_NE(regs->item(lane, 0)->background().color(), QColor(255, 225, 120)) << "no pc changed";
    }
}

TEST(StudioSteps, TheBackendDiffVerdictGoesWithTheProgramItCompared) {
    auto w = windowAt(1280, 800);
    w->debugger().addBackend("second reference", [] { return makeReferenceSession(); });
    ASSERT_TRUE(w->debugger().compareBackends());
    w->debugger().waitIdle();
    ASSERT_TRUE(w->diff()->item(0)->text().contains("the same machine")) << w->diff()->item(0)->text().toStdString();
    ASSERT_TRUE(w->openProgram(kExamples + "dot_product.qasm"));
    ASSERT_EQ(w->diff()->count(), 1);
    EXPECT_EQ(w->diff()->item(0)->text(), kDiffHint);
}

TEST(StudioDocument, ShippedKernelsStayAsInstalledAndSaveAsksWhereTheCopyGoes) {
    auto w = windowAt(1280, 800);  // the shipped dot_product.cu
    QString example = kExamples + "dot_product.cu";
    QString before = fileText(example);
    EXPECT_TRUE(w->windowTitle().contains("shipped")) << w->windowTitle().toStdString();
    w->editor()->insertAt("// mine\n", 0, 0);
    EXPECT_FALSE(w->saveAs(kExamples + "mine.cu"));
    EXPECT_TRUE(w->statusText().contains("part of qgpu studio's installation")) << w->statusText().toStdString();
    EXPECT_FALSE(QFile::exists(kExamples + "mine.cu"));
    // Save asks where the copy goes, starting outside the installation; cancelled, nothing is written.
    QString asked;
    QTimer::singleShot(300, [&] {
        if (auto* dialog = qobject_cast<QFileDialog*>(QApplication::activeModalWidget())) {
            asked = dialog->directory().absolutePath();
            dialog->reject();
        }
    });
    EXPECT_FALSE(w->save());
    EXPECT_FALSE(asked.isEmpty()) << "Save opened no dialog";
    EXPECT_FALSE(asked.startsWith(QFileInfo(kExamples).absolutePath())) << asked.toStdString();
    EXPECT_EQ(fileText(example), before);
    EXPECT_TRUE(w->isWindowModified());
}

TEST(StudioDocument, NewStartsACudaKernelWithALaunchFromItsSignature) {
    auto w = windowAt(1280, 800);
    w->newKernel();
    EXPECT_TRUE(w->windowTitle().contains("untitled.cu")) << w->windowTitle().toStdString();
    EXPECT_FALSE(w->isWindowModified());
    ASSERT_TRUE(w->debugger().snapshot()->loaded) << w->statusText().toStdString();
    LaunchSpec l = parseLaunchSpec(w->launchPanel()->text().toStdString());
    ASSERT_EQ(l.args.size(), 3u);
    EXPECT_EQ(l.args[0].name, "in");
    EXPECT_EQ(l.args[2].values, std::vector<int64_t>{8});
    w->debugger().run();
    w->debugger().waitIdle();
    EXPECT_TRUE(w->statusText().contains("out = [0, 2, 4, 6, 8, 10")) << w->statusText().toStdString();
}
