#include "qgpu/ui/CudaThreads.h"

#include <QStringList>

namespace qgpu {

namespace {

QString named(const char* what, const Dim3& shape, int index) {
    std::array<int, 3> c = coordinates(shape, index);
    return QString("%1 (%2,%3,%4)").arg(what).arg(c[0]).arg(c[1]).arg(c[2]);
}

// "(x,y,z)", "(x,y)", "(x)" or "x" at `at` in `words` (split on spaces): the index in `shape`, or -1.
int indexIn(const QStringList& words, int& at, const Dim3& shape, const char* what, QString& error) {
    if (at >= words.size()) {
        error = QString("'%1' needs its index or coordinates, as in %1 (1,0,0)").arg(what);
        return -1;
    }
    QString text = words[at++];
    while (text.startsWith('(') && !text.endsWith(')') && at < words.size()) text += words[at++];
    QString inner = text.startsWith('(') && text.endsWith(')') ? text.mid(1, text.size() - 2) : text;
    QStringList parts = inner.split(',');
    int c[3] = {0, 0, 0};
    bool ok = parts.size() <= 3;
    for (int i = 0; ok && i < int(parts.size()); ++i) c[i] = parts[i].trimmed().toInt(&ok);
    int size[3] = {shape.x, shape.y, shape.z};
    if (!ok) {
        error = QString("'%1' is not a %2 index or (x,y,z) coordinates").arg(text, what);
        return -1;
    }
    if (parts.size() == 1 && !text.startsWith('(')) {  // a linear index
        if (c[0] < 0 || c[0] >= shape.count()) {
            error = QString("%1 %2 is outside 0..%3").arg(what).arg(c[0]).arg(shape.count() - 1);
            return -1;
        }
        return c[0];
    }
    for (int i = 0; i < 3; ++i)
        if (c[i] < 0 || c[i] >= size[i]) {
            error = QString("%1 (%2,%3,%4) is outside the launch's shape (%5,%6,%7)")
                        .arg(what)
                        .arg(c[0])
                        .arg(c[1])
                        .arg(c[2])
                        .arg(size[0])
                        .arg(size[1])
                        .arg(size[2]);
            return -1;
        }
    return c[0] + size[0] * (c[1] + size[1] * c[2]);
}

}  // namespace

CudaFocus parseCudaFocus(const QString& text, const LaunchSpec& launch, CudaThread current) {
    CudaFocus out;
    out.thread = current;
    QString spaced = text.trimmed().toLower();
    spaced.replace("(", " (");
    QStringList words = spaced.split(' ', Qt::SkipEmptyParts);
    bool block = false, thread = false;
    for (int at = 0; at < words.size() && out.error.isEmpty();) {
        QString word = words[at++];
        if (word == "block" && !block) {
            block = true;
            out.thread.block = indexIn(words, at, launch.grid, "block", out.error);
            if (!thread) out.thread.thread = 0;
        } else if (word == "thread" && !thread) {
            thread = true;
            out.thread.thread = indexIn(words, at, launch.block, "thread", out.error);
        } else {
            out.error = QString("'%1' is not part of a focus: write block (x,y,z) thread (x,y,z)").arg(word);
        }
    }
    if (!block && !thread && out.error.isEmpty())
        out.error = "write block (x,y,z) thread (x,y,z), as cuda-gdb takes it";
    return out;
}

CudaThread cudaThreadOf(const MachineState& state, int slot) {
    int lanes = state.lanesPerWarp, warp = slot / lanes;
    return {warp / state.warpsPerBlock, (warp % state.warpsPerBlock) * lanes + slot % lanes};
}

int slotOf(const MachineState& state, CudaThread t) {
    int lanes = state.lanesPerWarp;
    return (t.block * state.warpsPerBlock + t.thread / lanes) * lanes + t.thread % lanes;
}

std::array<int, 3> coordinates(const Dim3& shape, int index) {
    return {index % shape.x, index / shape.x % shape.y, index / (shape.x * shape.y)};
}

QString cudaBlockName(const Dim3& grid, int block) { return named("block", grid, block); }
QString cudaThreadName(const Dim3& block, int thread) { return named("thread", block, thread); }

QString cudaThreadName(const LaunchSpec& launch, CudaThread t) {
    return cudaBlockName(launch.grid, t.block) + " " + cudaThreadName(launch.block, t.thread);
}

}  // namespace qgpu
