// The machine's thread slots as CUDA names the threads: a thread block and a thread in it, each with its
// (x, y, z) coordinates in the launch's grid and block shapes.
#pragma once

#include <QString>
#include <array>

#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineState.h"

namespace qgpu {

struct CudaThread {
    int block = 0;   // the thread block's index in the grid
    int thread = 0;  // the thread's index in its block
};

CudaThread cudaThreadOf(const MachineState& state, int slot);
int slotOf(const MachineState& state, CudaThread t);
std::array<int, 3> coordinates(const Dim3& shape, int index);  // x fastest, as CUDA linearizes them

QString cudaBlockName(const Dim3& grid, int block);     // "block (1,0,0)"
QString cudaThreadName(const Dim3& block, int thread);  // "thread (5,0,0)"
// As cuda-gdb names a thread: "block (1,0,0) thread (5,0,0)".
QString cudaThreadName(const LaunchSpec& launch, CudaThread t);

// A thread named as cuda-gdb's focus command takes it: "block (1,0,0) thread (5,0,0)", "block 1 thread 5",
// "thread (2,1)" (in the block of `current`), "block 3" (its thread 0); coordinates left out are 0. The
// thread, or `error` saying what is wrong (the launch's shapes when it lies outside them).
struct CudaFocus {
    CudaThread thread;
    QString error;
};
CudaFocus parseCudaFocus(const QString& text, const LaunchSpec& launch, CudaThread current);

}  // namespace qgpu
