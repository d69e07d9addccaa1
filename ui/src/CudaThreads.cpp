#include "qgpu/ui/CudaThreads.h"

namespace qgpu {

namespace {

QString named(const char* what, const Dim3& shape, int index) {
    std::array<int, 3> c = coordinates(shape, index);
    return QString("%1 (%2,%3,%4)").arg(what).arg(c[0]).arg(c[1]).arg(c[2]);
}

}  // namespace

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
