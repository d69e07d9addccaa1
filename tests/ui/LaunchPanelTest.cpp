// The launch panel: the form and the JSON follow each other, every edit is checked against the machine,
// and Build runs what the form says (or refuses, naming the problem).
#include <gtest/gtest.h>

#include <QComboBox>
#include <bit>
#include <cmath>
#include <QLabel>
#include <QApplication>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QWheelEvent>
#include <QtTest/QtTest>
#include <QSpinBox>
#include <QTableWidget>

#include "StudioTestSupport.h"
#include "qgpu/ui/LaunchPanel.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

class LaunchPanelTest : public ::testing::Test {
protected:
    void SetUp() override {
        window = windowWithExample("dot_product.qasm");
        ASSERT_TRUE(window);
        panel = window->launchPanel();
    }
    QString cell(int row, int column) const { return panel->arguments()->item(row, column)->text(); }
    QString kind(int row) const {
        return qobject_cast<QComboBox*>(panel->arguments()->cellWidget(row, LaunchPanel::Kind))->currentText();
    }
    int rowOf(const QString& name) const {
        for (int r = 0; r < panel->arguments()->rowCount(); ++r)
            if (cell(r, LaunchPanel::Name) == name) return r;
        return -1;
    }
    std::unique_ptr<MainWindow> window;
    LaunchPanel* panel = nullptr;
};

}  // namespace

TEST_F(LaunchPanelTest, TheExamplesLaunchFillsTheForm) {
    EXPECT_EQ(panel->blockBox(0)->value(), 3);
    EXPECT_EQ(panel->blockBox(1)->value(), 1);
    EXPECT_EQ(panel->gridBox(0)->value(), 1);
    ASSERT_EQ(panel->arguments()->rowCount(), 3);
    EXPECT_EQ(cell(0, LaunchPanel::Name), "a");
    EXPECT_EQ(kind(0), "array");
    EXPECT_EQ(cell(0, LaunchPanel::Values), "1, 2, 3");
    EXPECT_EQ(cell(2, LaunchPanel::Name), "out");
    EXPECT_EQ(kind(2), "zeros");
    EXPECT_EQ(cell(2, LaunchPanel::Values), "1");
    EXPECT_EQ(cell(2, LaunchPanel::Expect), "32");
    EXPECT_TRUE(panel->valid());
    EXPECT_EQ(panel->verdict(), "1 thread block of 3 threads (1 warp), 7 words of global memory");
}

TEST_F(LaunchPanelTest, EditingTheFormRewritesTheLaunchThatBuildRuns) {
    panel->arguments()->item(rowOf("a"), LaunchPanel::Values)->setText("10 20 30");
    panel->arguments()->item(rowOf("out"), LaunchPanel::Expect)->setText("320");
    LaunchSpec edited = parseLaunchSpec(window->launchEditor()->toPlainText().toStdString());
    EXPECT_EQ(edited.arg("a")->values, (std::vector<int64_t>{10, 20, 30}));
    ASSERT_TRUE(window->build()) << window->statusText().toStdString();
    window->debugger().run();
    window->debugger().waitIdle();  // the run goes on the engine thread
    MemoryMap map = validateLaunch(edited, MachineSpec::standard());
    EXPECT_EQ(window->debugger().session().snapshot().global[size_t(map.find("out")->base)],
              320u);  // 10*4 + 20*5 + 30*6
}

TEST_F(LaunchPanelTest, EditingTheJsonRefillsTheForm) {
    window->launchEditor()->setPlainText(
        R"({"grid": [2, 1, 1], "block": 4, "args": [{"name": "a", "array": [7, -8]}, {"name": "n", "scalar": 5}]})");
    EXPECT_EQ(panel->gridBox(0)->value(), 2);
    EXPECT_EQ(panel->blockBox(0)->value(), 4);
    ASSERT_EQ(panel->arguments()->rowCount(), 2);
    EXPECT_EQ(cell(0, LaunchPanel::Values), "7, -8");
    EXPECT_EQ(kind(1), "scalar");
    EXPECT_EQ(panel->verdict(), "2 thread blocks of 4 threads (2 warps), 2 words of global memory");
}

TEST_F(LaunchPanelTest, AWordThatIsNoNumberIsNamedAndBuildRefuses) {
    panel->arguments()->item(rowOf("b"), LaunchPanel::Values)->setText("4, x, 6");
    EXPECT_FALSE(panel->valid());
    EXPECT_EQ(panel->verdict(), "argument b, values: 'x' is not an integer (of 64 bits at most)");
    EXPECT_FALSE(window->build());
    EXPECT_TRUE(window->statusText().contains("'x' is not an integer")) << window->statusText().toStdString();
    EXPECT_FALSE(window->debugger().session().loaded());
}

TEST_F(LaunchPanelTest, AHostileLaunchSpecIsNamedAndTheStudioStaysUp) {
    const std::pair<const char*, const char*> cases[] = {
        {R"({"grid": 1, "block": 1e400, "args": []})", "the number 1e400 is out of range"},
        {R"({"block": 4, "block": 8, "args": []})", "the key \"block\" is given twice"},
    };
    for (const auto& [json, message] : cases) {
        window->launchEditor()->setPlainText(json);
        EXPECT_FALSE(panel->valid()) << json;
        EXPECT_TRUE(panel->verdict().contains(message)) << panel->verdict().toStdString();
        EXPECT_FALSE(window->build());
        EXPECT_FALSE(window->debugger().session().loaded());
    }
}

TEST_F(LaunchPanelTest, AShapeTooBigForTheMachineIsRefusedWithTheLimit) {
    panel->blockBox(0)->setValue(32);
    panel->blockBox(1)->setValue(2);
    EXPECT_FALSE(panel->valid());
    EXPECT_TRUE(panel->verdict().contains("a thread block of 64 threads exceeds the machine's 32"))
        << panel->verdict().toStdString();
    EXPECT_FALSE(window->build());
    panel->blockBox(1)->setValue(1);  // back within the machine
    EXPECT_TRUE(panel->valid()) << panel->verdict().toStdString();
}

TEST_F(LaunchPanelTest, AddedArgumentsAreZeroArrays) {
    panel->addArgument();
    ASSERT_EQ(panel->arguments()->rowCount(), 4);
    EXPECT_EQ(kind(3), "zeros");
    LaunchSpec edited = parseLaunchSpec(window->launchEditor()->toPlainText().toStdString());
    ASSERT_EQ(edited.args.size(), 4u);
    EXPECT_EQ(edited.args[3].values, std::vector<int64_t>{0});
    EXPECT_TRUE(panel->valid());
}

TEST_F(LaunchPanelTest, FloatArgumentsShowAsFloatsAndKeepTheirTypeThroughFormEdits) {
    window->launchEditor()->setPlainText(
        R"({"block": 4, "args": [{"name": "x", "type": "float", "array": [1.5, -0.0, "nan", 1e30]},
            {"name": "s", "type": "float", "scalar": 0.1}, {"name": "y", "type": "float", "zeros": 4}],
            "expect": {"y": [2, "inf", -3.25, 0]}})");
    ASSERT_EQ(panel->arguments()->rowCount(), 3);
    auto type = [&](int row) {
        return qobject_cast<QComboBox*>(panel->arguments()->cellWidget(row, LaunchPanel::Type))->currentText();
    };
    EXPECT_EQ(type(0), "float");
    EXPECT_EQ(cell(0, LaunchPanel::Values), "1.5, -0, nan, 1e+30");
    EXPECT_EQ(cell(1, LaunchPanel::Values), "0.1");
    EXPECT_EQ(cell(2, LaunchPanel::Values), "4");  // a zeros array's length
    EXPECT_EQ(cell(2, LaunchPanel::Expect), "2, inf, -3.25, 0");
    // Any edit of the form rewrites the JSON: the floats keep their type and their bits.
    panel->blockBox(0)->setValue(8);
    LaunchSpec before = parseLaunchSpec(
        R"({"block": 8, "args": [{"name": "x", "type": "float", "array": [1.5, -0.0, "nan", 1e30]},
            {"name": "s", "type": "float", "scalar": 0.1}, {"name": "y", "type": "float", "zeros": 4}],
            "expect": {"y": [2, "inf", -3.25, 0]}})");
    LaunchSpec after = parseLaunchSpec(window->launchEditor()->toPlainText().toStdString());
    ASSERT_EQ(after.args.size(), 3u);
    for (size_t i = 0; i < 3; ++i) {
        EXPECT_TRUE(after.args[i].isFloat()) << i;
        EXPECT_EQ(after.args[i].values, before.args[i].values) << i;
    }
    EXPECT_EQ(after.expect, before.expect);
    panel->arguments()->item(0, LaunchPanel::Values)->setText("1, 2.5e-3, -inf, x");
    EXPECT_EQ(panel->verdict(), "argument x, values: 'x' is not a 32-bit float (write e.g. 1.5, -2e-3, nan or inf)");
    panel->arguments()->item(0, LaunchPanel::Values)->setText("1, Infinity, -nan, nan(7)");  // from_chars's forms
    EXPECT_TRUE(panel->valid()) << panel->verdict().toStdString();
    EXPECT_EQ(
        parseLaunchSpec(window->launchEditor()->toPlainText().toStdString()).args[0].values,
        (std::vector<int64_t>{std::bit_cast<int32_t>(1.0f), std::bit_cast<int32_t>(INFINITY), 0x7fffffff, 0x7fffffff}));
    panel->arguments()->item(0, LaunchPanel::Values)->setText("1, 2.5e-3, -inf, .5");
    EXPECT_TRUE(panel->valid()) << panel->verdict().toStdString();
    EXPECT_EQ(parseLaunchSpec(window->launchEditor()->toPlainText().toStdString()).args[0].values,
              (std::vector<int64_t>{std::bit_cast<int32_t>(1.0f), std::bit_cast<int32_t>(2.5e-3f),
                                    std::bit_cast<int32_t>(-INFINITY), std::bit_cast<int32_t>(0.5f)}));
}

TEST_F(LaunchPanelTest, NarrowTypesAndDynamicSharedMemoryKeepThroughFormEdits) {
    window->launchEditor()->setPlainText(
        R"({"block": 4, "shared_bytes": 12, "args": [{"name": "m", "type": "bool", "array": [true, false, true]},
            {"name": "c", "type": "i8", "scalar": -5}, {"name": "h", "type": "u16", "zeros": 3}],
            "expect": {"m": [false, false, true]}})");
    ASSERT_EQ(panel->arguments()->rowCount(), 3);
    auto type = [&](int row) {
        return qobject_cast<QComboBox*>(panel->arguments()->cellWidget(row, LaunchPanel::Type))->currentText();
    };
    EXPECT_EQ(type(0), "bool");
    EXPECT_EQ(type(1), "i8");
    EXPECT_EQ(type(2), "u16");
    EXPECT_EQ(cell(0, LaunchPanel::Values), "true, false, true");
    EXPECT_EQ(cell(0, LaunchPanel::Expect), "false, false, true");
    auto* shared = panel->findChild<QSpinBox*>("launchSharedBytes");
    ASSERT_NE(shared, nullptr);
    EXPECT_EQ(shared->value(), 12);
    panel->blockBox(0)->setValue(8);  // any form edit rewrites the JSON
    LaunchSpec after = parseLaunchSpec(window->launchEditor()->toPlainText().toStdString());
    EXPECT_EQ(after.sharedBytes, 12);
    EXPECT_EQ(after.args[0].type, ElementType::Bool);
    EXPECT_EQ(after.args[0].values, (std::vector<int64_t>{1, 0, 1}));
    EXPECT_EQ(after.args[1].values, std::vector<int64_t>{-5});
    EXPECT_EQ(after.args[2].type, ElementType::U16);
    shared->setValue(40);
    EXPECT_EQ(parseLaunchSpec(window->launchEditor()->toPlainText().toStdString()).sharedBytes, 40);
    panel->arguments()->item(0, LaunchPanel::Values)->setText("1, 2");
    EXPECT_FALSE(panel->valid());
    EXPECT_NE(panel->verdict().indexOf("is not true, false, 0 or 1"), -1) << panel->verdict().toStdString();
}

TEST_F(LaunchPanelTest, SymbolsAndAStructsBytesKeepThroughFormEdits) {
    window->launchEditor()->setPlainText(
        R"({"block": 1, "args": [{"name": "p", "fields": [{"i32": 3}, {"i16": -2}]}],
            "symbols": [{"name": "scale", "type": "float", "array": [0.5, 2]}]})");
    panel->blockBox(0)->setValue(2);  // any form edit rewrites the JSON
    LaunchSpec after = parseLaunchSpec(window->launchEditor()->toPlainText().toStdString());
    ASSERT_EQ(after.symbols.size(), 1u);
    EXPECT_EQ(after.symbols[0].name, "scale");
    EXPECT_EQ(after.symbols[0].values.size(), 2u);
    EXPECT_EQ(after.args[0].values, (std::vector<int64_t>{3, 0, 0, 0, 254, 255, 0, 0}));  // the struct's bytes
}

TEST_F(LaunchPanelTest, TheWheelOverABoxNotClickedIntoNeverChangesIt) {
    auto* type = qobject_cast<QComboBox*>(panel->arguments()->cellWidget(0, LaunchPanel::Type));
    ASSERT_TRUE(type);
    QString before = type->currentText();
    QWheelEvent wheel(QPointF(5, 5), type->mapToGlobal(QPointF(5, 5)), QPoint(), QPoint(0, -120), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(type, &wheel);
    EXPECT_EQ(type->currentText(), before);
    EXPECT_EQ(type->focusPolicy(), Qt::StrongFocus) << "a click, not the wheel, gives it focus";
}

TEST_F(LaunchPanelTest, ABlockLargerThanTheMachinesCanBeTypedAndIsRefusedWithTheLimit) {
    QSpinBox* x = panel->blockBox(0);
    x->clear();
    QTest::keyClicks(x, "64");
    x->interpretText();
    EXPECT_EQ(x->value(), 64);
    EXPECT_FALSE(panel->valid());
    EXPECT_TRUE(panel->verdict().contains("64 threads")) << panel->verdict().toStdString();
}

TEST_F(LaunchPanelTest, TheKernelsSignatureFillsTheArguments) {
    auto* from = panel->findChild<QPushButton*>("fromSignatureButton");
    ASSERT_TRUE(from);
    EXPECT_FALSE(from->isEnabled()) << "hand-written assembly has no signature";
    panel->setSignature(
        {{"x", true, ElementType::F32}, {"out", true, ElementType::I32}, {"n", false, ElementType::I32}});
    ASSERT_TRUE(from->isEnabled());
    from->click();
    LaunchSpec l = parseLaunchSpec(panel->text().toStdString());
    ASSERT_EQ(l.args.size(), 3u);
    EXPECT_EQ(l.block.x, 3) << "the shape is kept";
    EXPECT_EQ(l.args[0].values, (std::vector<int64_t>{0, std::bit_cast<int32_t>(1.0f), std::bit_cast<int32_t>(2.0f)}));
    EXPECT_TRUE(l.args[0].isFloat());
    EXPECT_EQ(l.args[1].values, (std::vector<int64_t>{0, 1, 2}));
    EXPECT_FALSE(l.args[2].isArray);
    EXPECT_EQ(l.args[2].values, std::vector<int64_t>{3});
    EXPECT_TRUE(l.expect.empty());
}
