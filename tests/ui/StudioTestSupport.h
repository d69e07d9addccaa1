// Shared by the studio's widget tests: the interpreter as the expectation for what the window shows.
#pragma once

#include <gtest/gtest.h>

#include <Qsci/qsciscintilla.h>

#include <QPlainTextEdit>
#include <memory>
#include <QTableWidget>

#include "qgpu/core/Assembler.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/ui/MainWindow.h"
#include "qgpu/ui/StateViews.h"

namespace qgpu::testing {

inline const QString kExamples = QString(QGPU_SOURCE_DIR) + "/resources/examples/";

// A shown studio window with an example open (the reference backend); null, with a test failure, when the
// example does not open.
inline std::unique_ptr<MainWindow> windowWithExample(const QString& file) {
    auto window = std::make_unique<MainWindow>();
    window->resize(1200, 800);
    window->show();
    bool opened = window->openProgram(kExamples + file);
    EXPECT_TRUE(opened) << window->statusText().toStdString();
    return opened ? std::move(window) : nullptr;
}

// Runs the same example on a bare interpreter, `steps` steps in.
inline Interpreter referenceAfter(MainWindow& w, int steps) {
    Program p = assemble(w.editor()->text().toStdString());
    LaunchSpec l = parseLaunchSpec(w.launchEditor()->toPlainText().toStdString());
    Interpreter in(linkLaunch(p, l).program, l);
    for (int i = 0; i < steps; ++i) in.step();
    return in;
}

inline void expectRegistersMatch(MainWindow& w, const MachineState& ref) {
    QTableWidget* t = w.registers()->table();
    int warp = w.registers()->warp();
    for (int lane = 0; lane < 4; ++lane)
        for (int r = 1; r < 16; ++r) {
            uint32_t v = ref.threads[size_t(warp * 4 + lane)].regs[size_t(r)];
            ASSERT_TRUE(t->item(lane, r + 1)) << "lane " << lane << " r" << r;
            EXPECT_EQ(t->item(lane, r + 1)->text(), formatWord(v, NumberFormat::Signed))
                << "lane " << lane << " r" << r;
        }
}

}  // namespace qgpu::testing
