// The expression language's model backend: each ready-made kernel launch runs inside the compiled GPU
// model, and its result is read out of the model's recurrent state.
#pragma once

#include "qgpu/compiler/OpKernels.h"
#include "qgpu/core/Expression.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/runtime/GpuModel.h"

namespace qgpu {

class ModelKernelRunner : public ProgramRunner {
public:
    ModelKernelRunner(const GpuModel& model, OpKernelLibrary& kernels, Engine engine = Engine::Sparse)
        : ProgramRunner(kernels), m_model(model), m_engine(engine) {}
    // Throws DiagnosticError when the model does not end the launch, or when its run is not the
    // interpreter's (compareLaunch: records, registers, memory), so no launch returns an unchecked value.
    expr::KernelOutcome runLinked(const Program& program, const LaunchSpec& launch) override;
    // The last launch as the model ran it (the tokens fed and written), and as the interpreter ran it.
    const GpuLaunch& last() const { return m_last; }
    const gpu::ReferenceLaunch& lastReference() const { return m_reference; }
    const GpuModel& model() const { return m_model; }
    Engine engine() const { return m_engine; }

private:
    const GpuModel& m_model;
    Engine m_engine;
    GpuLaunch m_last;
    gpu::ReferenceLaunch m_reference;
};

}  // namespace qgpu
