// The Results panel and the token stream's words, in the window.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QLabel>
#include <QTableWidget>
#include <QtTest/QtTest>

#include "StudioTestSupport.h"
#include "qgpu/ui/ResultsView.h"

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
