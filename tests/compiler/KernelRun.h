// Runs a CUDA kernel over a launch on the reference interpreter, for the compiler's tests.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/Trace.h"

namespace qgpu::tests {

// A kernel run to its end: the linked program, its memory map and the machine's last state.
struct FinishedRun {
    Program program;
    MemoryMap map;
    MachineState state;
};

// `source` compiled with `options` and run over `launchJson` to the end (which it must reach, with no machine
// warning on the way).
inline FinishedRun runKernel(const std::string& source, const std::string& launchJson,
                             const CudaCompileOptions& options) {
    Program program = compileKernel(source, "k.cu", MachineSpec::standard(), options).kernel.program;
    LaunchSpec launch = parseLaunchSpec(launchJson, "k.json");
    LinkedLaunch linked = linkLaunch(program, launch);
    Interpreter interp(linked.program, launch, MachineSpec::standard());
    for (int steps = 0; !interp.done() && steps < 1000000; ++steps) EXPECT_TRUE(interp.step().warnings.empty());
    EXPECT_TRUE(interp.done());
    return {std::move(linked.program), std::move(linked.map), interp.state()};
}

// The same at `optLevel`: the final contents of every array and variable by name.
inline std::map<std::string, std::vector<int64_t>> runToEnd(const std::string& source, const std::string& launchJson,
                                                            int optLevel = 2) {
    CudaCompileOptions options;
    options.optLevel = optLevel;
    FinishedRun run = runKernel(source, launchJson, options);
    std::map<std::string, std::vector<int64_t>> out;
    for (const ArrayPlacement& p : run.map.arrays) out[p.name] = readArray(run.state, p);
    return out;
}

}  // namespace qgpu::tests
