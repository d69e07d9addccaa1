// Whether the model's run of a launch is the interpreter's: the one check behind `qgpu run --check`, `qgpu
// eval`, chat's tool calls (ModelKernelRunner), `qgpu bench`'s exact column and the tests. Where it fails,
// SessionComparer (core/Session.h) steps both backends to the first step whose machines differ.
#pragma once

#include <string>

#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/runtime/GpuModel.h"

namespace qgpu {

struct LaunchCheck {
    enum class Part { None, Records, Registers, GlobalMemory, SharedMemory, TeacherForced };
    Part differs = Part::None;  // the first part that differs, in the order the check compares them
    long record = -1;           // Records, TeacherForced: the record that differs or is mispredicted
    int thread = -1;            // Registers: the first thread (slot) whose registers differ
    std::string what;           // one sentence naming the difference; empty when exact
    bool exact() const { return differs == Part::None; }
};

// The records the model wrote against the interpreter's stream, then every thread's registers, global
// memory and each thread block's shared memory.
LaunchCheck compareLaunch(const GpuLaunch& run, const gpu::ReferenceLaunch& ref);

// The teacher-forced replay: `run.fed` and the interpreter's whole stream fed to the model (on the dense
// engine in one prefill), whose argmax must be the next record at every position where the model writes.
LaunchCheck teacherForcedCheck(const GpuModel& model, Engine engine, const GpuLaunch& run,
                               const gpu::ReferenceLaunch& ref);

}  // namespace qgpu
