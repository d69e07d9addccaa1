// The expression language's model backend: each ready-made kernel launch runs inside the compiled GPU
// model, and its result is read out of the model's recurrent state. Every call (one tool call of chat: all
// launches of one expression, or the one launch of a kernel; one `qgpu eval`) has a budget of tokens and
// seconds, so a kernel or an expression that would keep the model busy for minutes is refused with advice.
#pragma once

#include <cstddef>
#include <string>

#include "qgpu/compiler/OpKernels.h"
#include "qgpu/core/Expression.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/runtime/GpuModel.h"

namespace qgpu {

// What one call may spend in the GPU model. Past either limit the launch is refused with a DiagnosticError
// that names the limit and what to do instead; chat hands it to Qwen as the tool's result.
struct RunBudget {
    // Tokens the model reads and writes over the call's launches: each launch's program image, data and
    // launch (fed) and the records of the interpreter's run of it (which the model writes the same). Counted
    // after the interpreter's run and before the model's, so a launch over the budget never starts. About 40 s
    // on the sparse engine at its 5,000 tokens/s (docs/bench.md).
    size_t maxTokens = 200'000;
    // Wall-clock seconds inside the call's launches (the interpreter's runs and the model's), checked before
    // each launch and every kRunProgressPeriod records the model writes; past it the model stops.
    double maxSeconds = 60;
};

// A ProgramRunner whose launches share a RunBudget per call. runTool opens a call before each tool call.
class BudgetedRunner : public ProgramRunner {
public:
    using ProgramRunner::ProgramRunner;
    // Opens a new call: the tokens and seconds spent so far no longer count.
    virtual void startCall() = 0;
};

class ModelKernelRunner : public BudgetedRunner {
public:
    // The first call opens at construction.
    ModelKernelRunner(const GpuModel& model, OpKernelLibrary& kernels, Engine engine = Engine::Sparse,
                      RunBudget budget = {})
        : BudgetedRunner(kernels), m_model(model), m_engine(engine), m_budget(budget) {}
    // An expression's launch: runLinked, whose refusals then advise splitting the expression.
    expr::KernelOutcome run(const expr::KernelLaunch& k) override;
    // Throws DiagnosticError when the launch would pass the call's budget (RunBudget), when the model does
    // not end the launch, or when its run is not the interpreter's (compareLaunch: records, registers,
    // memory), so no launch returns an unchecked value.
    expr::KernelOutcome runLinked(const Program& program, const LaunchSpec& launch) override;
    void startCall() override;

    const RunBudget& budget() const { return m_budget; }
    void setBudget(const RunBudget& budget) { m_budget = budget; }
    size_t callTokens() const { return m_callTokens; }    // spent in the open call
    double callSeconds() const { return m_callSeconds; }  // likewise

    // The last launch as the model ran it (the tokens fed and written), and as the interpreter ran it.
    const GpuLaunch& last() const { return m_last; }
    const gpu::ReferenceLaunch& lastReference() const { return m_reference; }
    const GpuModel& model() const { return m_model; }
    Engine engine() const { return m_engine; }

private:
    // What to do when a launch passes the budget: for an expression's kernel, or for a kernel Qwen wrote.
    std::string advice() const;

    const GpuModel& m_model;
    Engine m_engine;
    RunBudget m_budget;
    size_t m_callTokens = 0;
    double m_callSeconds = 0;
    std::string m_expressionKernel;  // while run() runs an expression's launch: its kernel
    GpuLaunch m_last;
    gpu::ReferenceLaunch m_reference;
};

}  // namespace qgpu
