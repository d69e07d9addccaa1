// The expression language's model backend: each ready-made kernel launch runs inside the compiled GPU
// model, and its result is read out of the model's recurrent state.
#pragma once

#include "qgpu/compiler/OpKernels.h"
#include "qgpu/core/Expression.h"
#include "qgpu/runtime/GpuModel.h"

namespace qgpu {

class ModelKernelRunner : public ProgramRunner {
public:
    ModelKernelRunner(const GpuModel& model, OpKernelLibrary& kernels, Engine engine = Engine::Sparse)
        : ProgramRunner(kernels), m_model(model), m_engine(engine) {}
    // Throws DiagnosticError when the model does not end the launch.
    expr::KernelOutcome runLinked(const Program& program, const LaunchSpec& launch) override;
    // The last launch as the model ran it: the tokens fed and written.
    const GpuLaunch& last() const { return m_last; }

private:
    const GpuModel& m_model;
    Engine m_engine;
    GpuLaunch m_last;
};

}  // namespace qgpu
