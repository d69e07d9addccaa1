// Shared by the GPU-in-the-model tests (sparse in the default run, dense under `slow`): the model must
// write the reference interpreter's stream token for token, end with its registers, and predict every
// record of a teacher-forced stream.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "qgpu/compiler/Frontend.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Assembler.h"
#include "qgpu/core/DevicePrintf.h"
#include "qgpu/core/Files.h"
#include "qgpu/runtime/GpuModel.h"
#include "qgpu/runtime/GpuModelDense.h"
#include "qgpu/runtime/LaunchCheck.h"

namespace qgpu::testing {

// The GPU model on one engine, built once per test process.
inline const GpuModel& gpuModel(Engine engine) {
    static std::unique_ptr<GpuModel> sparse, dense;
    std::unique_ptr<GpuModel>& m = engine == Engine::Sparse ? sparse : dense;
    if (!m) m = GpuModel::build({engine}, gpu::defaultMachineGeometry(), DType::F32, makeDenseGpu);
    return *m;
}

// Runs a linked program in the model and checks it against the interpreter: the stream record for record,
// every thread's registers, global and shared memory. Throws DiagnosticError for what the model does not run yet.
inline GpuLaunch runAgainstReference(const GpuModel& model, Engine engine, const Program& program,
                                     const LaunchSpec& launch, const gpu::ReferenceLaunch& ref) {
    GpuLaunch run =
        model.run(program, launch.grid, launch.block, ref.initialGlobal, int(ref.stream.size()) + 8, engine);
    LaunchCheck check = compareLaunch(run, ref);
    EXPECT_TRUE(check.exact()) << check.what;
    EXPECT_TRUE(run.ended);
    return run;
}

// runAgainstReference, then a teacher-forced replay: the whole stream in one prefill (the chunked delta
// rule), argmax at every position the model writes.
inline void expectExact(const GpuModel& model, Engine engine, const Program& unlinked, const LaunchSpec& launch) {
    Program program = linkLaunch(unlinked, launch).program;
    gpu::ReferenceLaunch ref = gpu::referenceLaunch(program, launch);
    GpuLaunch run = runAgainstReference(model, engine, program, launch, ref);
    if (::testing::Test::HasFailure()) return;
    LaunchCheck teacher = teacherForcedCheck(model, engine, run, ref);
    EXPECT_TRUE(teacher.exact()) << teacher.what;
}

inline void expectExact(const GpuModel& model, Engine engine, const std::string& source, const LaunchSpec& launch) {
    expectExact(model, engine, assemble(source, "test.qasm"), launch);
}

inline void expectExact(const GpuModel& model, Engine engine, const std::string& source, int lanes) {
    expectExact(model, engine, source,
                parseLaunchSpec(R"({"grid": 1, "block": )" + std::to_string(lanes) + R"(, "args": []})"));
}

// A file of resources/examples.
inline std::string example(const std::string& name) {
    return readFile(std::string(QGPU_RESOURCE_DIR) + "/examples/" + name);
}

// An example program with its launch (NAME.qasm, NAME.json), on `lanes` threads when given.
inline void expectExample(const GpuModel& model, Engine engine, const std::string& name, int lanes = 0) {
    LaunchSpec launch = parseLaunchSpec(example(name + ".json"), name + ".json");
    if (lanes > 0) launch.block = Dim3{lanes, 1, 1};
    expectExact(model, engine, example(name + ".qasm"), launch);
}

// A kernel of the CUDA suite (resources/kernels/NAME.cu with NAME.json), compiled by Clang and run in the
// model on the sparse engine: the stream must be the interpreter's and the arrays the spec's expectation.
// Returns false, printing why, when the kernel uses what the model does not run yet.
// A kernel of resources/kernels, compiled and linked against its launch.
struct SuiteKernel {
    LaunchSpec launch;
    MemoryMap map;
    Program program;
};
inline SuiteKernel loadSuiteKernel(const std::string& name) {
    std::string dir = std::string(QGPU_RESOURCE_DIR) + "/kernels/";
    SuiteKernel s;
    s.launch = parseLaunchSpec(readFile(dir + name + ".json"), name + ".json");
    CompiledKernel k = compileKernel(readFile(dir + name + ".cu"), name + ".cu", MachineSpec::standard());
    LinkedLaunch linked = linkLaunch(k.kernel.program, s.launch);
    s.map = linked.map;
    s.program = linked.program;
    return s;
}

inline bool expectSuiteKernel(const GpuModel& model, const std::string& name) {
    SCOPED_TRACE(name);
    auto [launch, map, program] = loadSuiteKernel(name);
    gpu::ReferenceLaunch ref = gpu::referenceLaunch(program, launch);
    GpuLaunch result;
    try {
        result = runAgainstReference(model, Engine::Sparse, program, launch, ref);
    } catch (const DiagnosticError& e) {
        std::printf("not in the model yet: %s: %s\n", name.c_str(), e.what());
        return false;
    }
    for (const auto& [array, values] : launch.expect) {
        const ArrayPlacement* placed = map.find(array);
        EXPECT_NE(placed, nullptr) << array;
        if (!placed) continue;
        auto first = result.global.begin() + placed->base;
        std::vector<int32_t> words(first, first + placed->size);
        EXPECT_EQ(unpackElements(words, placed->type, size_t(placed->count)), values) << array;
    }
    std::vector<std::string> printed = launch.expectPrintf;
    std::sort(printed.begin(), printed.end());
    EXPECT_EQ(readDevicePrintf(result.global, map).sortedTexts(), printed) << "printf";
    std::printf("%s: %zu tokens fed, %zu written, %.2f s\n", name.c_str(), result.fed.size(), result.written.size(),
                result.seconds);
    return true;
}

}  // namespace qgpu::testing
