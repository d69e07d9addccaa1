// qgpu-studio: the desktop debugger.
// Usage: qgpu-studio [KERNEL.cu | PROGRAM.qasm] [--steps N]
// (default: the CUDA dot-product kernel; --steps runs N steps after loading)
#include <QApplication>
#include <QFileInfo>

#include "qgpu/ui/MainWindow.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("qgpu studio");
    QString path = qgpu::resourceDir() + "/examples/dot_product.cu";
    int steps = 0;
    QStringList args = app.arguments();
    for (int i = 1; i < args.size(); ++i) {
        if (args[i] == "--steps" && i + 1 < args.size())
            steps = args[++i].toInt();
        else
            path = args[i];
    }
    qgpu::MainWindow window;
    window.resize(1500, 950);
    window.show();
    if (window.openProgram(QFileInfo(path).absoluteFilePath()))
        for (int i = 0; i < steps; ++i) window.step();
    return app.exec();
}
