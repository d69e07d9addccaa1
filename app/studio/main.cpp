// qgpu-studio: the desktop debugger. Opens PROGRAM.qasm given on the command line, else the dot product.
#include <QApplication>
#include <QFileInfo>

#include "qgpu/ui/MainWindow.h"

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    QApplication::setApplicationName("qgpu studio");
    qgpu::MainWindow window;
    window.resize(1400, 900);
    QString path = argc > 1 ? QString::fromLocal8Bit(argv[1]) : qgpu::resourceDir() + "/examples/dot_product.qasm";
    window.openProgram(QFileInfo(path).absoluteFilePath());
    window.show();
    return app.exec();
}
