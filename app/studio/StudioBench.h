// `qgpu-studio --bench`: the studio's model backend against the CLI's launch of the same kernel, measured
// in one process, and the longest time the window's event loop waits on each debugger action.
#pragma once

// The runtime's headers come before Qt's (Qt's `emit` macro).
#include "StudioChat.h"

#include <QString>

namespace qgpu {
class MainWindow;
}

namespace qgpu::studio {

struct BenchOptions {
    QString path;  // the kernel (its launch spec beside it, as the studio opens it)
    int runs = 3;  // each figure is the median of this many
};

// Prints the figures to stdout; returns the process's exit status (2 when the kernel does not build or a
// backend fails).
int runStudioBench(MainWindow& window, ModelHolder& model, const BenchOptions& options);

}  // namespace qgpu::studio
