// qgpu-studio: the desktop debugger.
// Usage: qgpu-studio [KERNEL.cu | PROGRAM.qasm] [--backend reference|model] [--steps N] [--show PANEL,...]
//                    [--host DIR] [--bench [--runs N]]
// (default: the CUDA dot-product kernel on the reference interpreter; --steps runs N steps after loading;
// --show brings the named panels to the front of their tab groups, e.g. "Layers,ROM"; --host: a Qwen3.5
// checkpoint for the chat panel; --bench: the model backend's speed in the window against the CLI's, and the
// longest main-thread stall of each debugger action, printed as tables, then exit)
// The runtime's headers come before Qt's: Qt defines `emit` as a macro, and the circuit has a method of
// that name.
#include "StudioBench.h"
#include "StudioChat.h"
#include "qgpu/runtime/ModelSession.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileInfo>
#include <QTimer>
#include <QProgressDialog>

#include <chrono>
#include <cstdio>
#include <stdexcept>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/ui/MainWindow.h"

namespace {

// Waits for the GPU model (built on a worker thread) behind a progress dialog, keeping the window live.
// Cancel gives the window back at once: the backend switch is dropped, and the build finishes in the
// background for the next time it is asked for.
const qgpu::GpuModel& waitForModel(qgpu::studio::ModelHolder& holder, QWidget* parent) {
    auto future = holder.get();
    if (future.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
        QProgressDialog progress(holder.fromCheckpoint()
                                     ? "Loading the GPU's 17 Qwen3.5 layers from the combined checkpoint..."
                                     : "Building the GPU inside the model from code (17 Qwen3.5 layers)...",
                                 "Cancel", 0, 0, parent);
        progress.setWindowModality(Qt::WindowModal);
        progress.setMinimumDuration(0);
        progress.show();
        while (future.wait_for(std::chrono::milliseconds(30)) != std::future_status::ready) {
            QApplication::processEvents();
            if (progress.wasCanceled())
                throw std::runtime_error("cancelled while the GPU model was being built; choose it again to wait");
        }
    }
    return *future.get();
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("qgpu studio");
    QString path = qgpu::resourceDir() + "/examples/dot_product.cu";
    QString backend = "reference", host;
    QStringList panels;
    qgpu::ChatHostOptions hostOptions;
    int steps = 0;
    bool bench = false;
    int runs = 3;
    QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == "--steps" && i + 1 < args.size())
            steps = args[++i].toInt();
        else if (args[i] == "--backend" && i + 1 < args.size())
            backend = args[++i];
        else if (args[i] == "--show" && i + 1 < args.size())
            panels = args[++i].split(',');
        else if (args[i] == "--bench")
            bench = true;
        else if (args[i] == "--runs" && i + 1 < args.size())
            runs = args[++i].toInt();
        else if (args[i] == "--host" && i + 1 < args.size())
            host = args[++i];
        else if ((args[i] == "--weights" || args[i] == "--device") && i + 1 < args.size())
            try {
                std::string value = args[i + 1].toStdString();
                if (args[i] == "--weights")
                    hostOptions.weights = qgpu::parseWeightFormat(value);
                else
                    hostOptions.device = qgpu::parseDevice(value);
                ++i;
            } catch (const qgpu::DiagnosticError& e) {
                std::fprintf(stderr, "%s\n", e.what());
                return 2;
            }
        else
            path = args[i];
    }
    qgpu::studio::ModelHolder model(host.toStdString());  // made when the model backend or the chat first needs it
    qgpu::MainWindow window;
    window.debugger().addBackend("model", [&] { return qgpu::makeModelSession(waitForModel(model, &window)); });
    window.setChatEngine(std::make_unique<qgpu::studio::StudioChat>(model, qgpu::resourceDir().toStdString(),
                                                                    host.toStdString(), hostOptions));
    window.show();
    if (bench) return qgpu::studio::runStudioBench(window, model, {path, runs});
    bool ok = window.openProgram(QFileInfo(path).absoluteFilePath());
    if (ok && backend != "reference") ok = window.debugger().setBackend(backend);
    for (int i = 0; ok && i < steps; ++i) window.debugger().step();
    // After the first run's default layout, which waits for the window's size and raises each group's first.
    QTimer::singleShot(0, &window, [&window, panels] {
        for (const QString& panel : panels) {
            auto* dock = window.findChild<QDockWidget*>(panel.trimmed());
            if (dock)
                dock->raise();
            else
                std::fprintf(stderr, "qgpu-studio: there is no panel named \"%s\"\n", panel.toUtf8().constData());
        }
    });
    return app.exec();
}
