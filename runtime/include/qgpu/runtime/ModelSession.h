// The debugger's model backend (behind core's Session): the launch runs inside the compiled GPU
// model one record at a time, and after each step the machine is decoded out of the recurrent state
// (registers, lane pcs and statuses, global and shared memory). Stepping back walks the recorded states.
#pragma once

#include <memory>

#include "qgpu/core/Session.h"
#include "qgpu/runtime/GpuModel.h"

namespace qgpu {

// One step is one EXEC record with lanes and its VAL records; a RELEASE and the empty EXEC passes that
// follow belong to it (the interpreter has no steps for them). stepToken writes the step at the frontier one
// token at a time, decoding the machine after each (history keeps whole steps). `model` must have the
// sparse engine and outlive the session.
std::unique_ptr<Session> makeModelSession(const GpuModel& model);

// The model session's stepper, for the token stream and the ROM (null before load or for another backend).
const GpuStepper* modelStepper(const Session& session);

}  // namespace qgpu
