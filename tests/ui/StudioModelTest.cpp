// The studio on the model backend: the GPU inside the model runs the launch, the window shows the state
// decoded from its recurrent state (the interpreter's values) and the tokens it wrote. Under xcb (Xvfb).
// The runtime's headers come before Qt's (Qt's `emit` macro).
#include "qgpu/runtime/GpuModel.h"
#include "qgpu/runtime/ModelSession.h"

#include <QApplication>
#include <QListWidget>

#include "StudioTestSupport.h"

using namespace qgpu;
using namespace qgpu::testing;

TEST(StudioModel, SteppingTheModelShowsTheInterpretersStateAndTheTokensItWrote) {
    auto model = GpuModel::build({Engine::Sparse});
    MainWindow window;
    window.addBackend("model", [&] { return makeModelSession(*model); });
    window.resize(1200, 800);
    window.show();
    ASSERT_TRUE(window.openProgram(kExamples + "dot_product.qasm")) << window.statusText().toStdString();
    EXPECT_TRUE(window.tokens()->item(0)->text().contains("writes no tokens"));
    ASSERT_TRUE(window.setBackend("model")) << window.statusText().toStdString();
    EXPECT_EQ(window.backend(), "model");
    EXPECT_EQ(window.session().backendName(), "model");
    int fed = window.tokens()->count();
    ASSERT_GT(fed, 0);
    EXPECT_TRUE(window.tokens()->item(fed - 1)->text().contains("GRID("))
        << window.tokens()->item(fed - 1)->text().toStdString();

    for (int n = 1; n <= 2; ++n) {
        window.step();
        expectRegistersMatch(window, referenceAfter(window, n).state());
        EXPECT_EQ(window.events()->count(), n);
    }
    QString current = window.tokens()->currentItem()->text();
    EXPECT_TRUE(current.startsWith("written")) << current.toStdString();
    window.stepBack();
    expectRegistersMatch(window, referenceAfter(window, 1).state());

    window.run();
    while (window.running()) QApplication::processEvents();
    EXPECT_TRUE(window.statusText().contains("finished")) << window.statusText().toStdString();
    EXPECT_TRUE(window.tokens()->item(window.tokens()->count() - 1)->text().contains("END"));
    expectRegistersMatch(window, referenceAfter(window, 1000).state());

    // Clicking the first written token goes back to the end of the first step.
    emit window.tokens()->itemActivated(window.tokens()->item(fed));
    EXPECT_EQ(window.session().position(), 1);
    expectRegistersMatch(window, referenceAfter(window, 1).state());
}

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
