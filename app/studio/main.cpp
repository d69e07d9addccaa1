// qgpu-studio: the desktop debugger.
// Usage: qgpu-studio [KERNEL.cu | PROGRAM.qasm] [--backend reference|model] [--steps N]
// (default: the CUDA dot-product kernel on the reference interpreter; --steps runs N steps after loading)
// The runtime's headers come before Qt's: Qt defines `emit` as a macro, and the circuit has a method of
// that name.
#include "qgpu/runtime/GpuModel.h"
#include "qgpu/runtime/ModelSession.h"

#include <QApplication>
#include <QFileInfo>
#include <QProgressDialog>

#include <chrono>
#include <future>
#include <memory>

#include "qgpu/ui/MainWindow.h"

namespace {

constexpr const char* kModelBackend = "model";

// Builds the GPU model (about 12 s) on a worker thread; a progress dialog keeps the window responsive.
std::shared_ptr<qgpu::GpuModel> buildModel(QWidget* parent) {
    QProgressDialog progress("Building the GPU inside the model from code (17 Qwen3.5 layers)...", QString(), 0, 0,
                             parent);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(0);
    progress.show();
    auto future = std::async(std::launch::async, [] { return qgpu::GpuModel::build({qgpu::Engine::Sparse}); });
    while (future.wait_for(std::chrono::milliseconds(30)) != std::future_status::ready) QApplication::processEvents();
    return std::shared_ptr<qgpu::GpuModel>(future.get());
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("qgpu studio");
    QString path = qgpu::resourceDir() + "/examples/dot_product.cu";
    QString backend = "reference";
    int steps = 0;
    QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == "--steps" && i + 1 < args.size())
            steps = args[++i].toInt();
        else if (args[i] == "--backend" && i + 1 < args.size())
            backend = args[++i];
        else
            path = args[i];
    }
    qgpu::MainWindow window;
    std::shared_ptr<qgpu::GpuModel> model;  // built when the model backend is first chosen
    window.addBackend(kModelBackend, [&]() -> std::unique_ptr<qgpu::Session> {
        if (!model) model = buildModel(&window);
        return qgpu::makeModelSession(*model);
    });
    window.resize(1500, 950);
    window.show();
    bool ok = window.openProgram(QFileInfo(path).absoluteFilePath());
    if (ok && backend != "reference") ok = window.setBackend(backend);
    for (int i = 0; ok && i < steps; ++i) window.step();
    return app.exec();
}
