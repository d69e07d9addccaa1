#include "EvalCommand.h"

#include <iostream>
#include <memory>

#include "GpuCommands.h"
#include "qgpu/compiler/OpKernels.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Expression.h"
#include "qgpu/runtime/LaunchCheck.h"
#include "qgpu/runtime/ModelKernelRunner.h"

namespace qgpu::cli {

namespace {

// The model runner (which checks every launch against the interpreter's run) with the teacher-forced replay
// of each launch after it.
class TeacherForcedRunner : public expr::KernelRunner {
public:
    explicit TeacherForcedRunner(ModelKernelRunner& model) : m_model(model) {}
    expr::KernelOutcome run(const expr::KernelLaunch& k) override {
        expr::KernelOutcome out = m_model.run(k);
        LaunchCheck c = teacherForcedCheck(m_model.model(), m_model.engine(), m_model.last(), m_model.lastReference());
        if (!c.exact()) throw DiagnosticError(Diagnostic{"", 0, 0, "check: " + k.kernel + ": " + c.what});
        return out;
    }

private:
    ModelKernelRunner& m_model;
};

std::string shape(const Dim3& d) {
    return d.y == 1 && d.z == 1
               ? std::to_string(d.x)
               : "(" + std::to_string(d.x) + ", " + std::to_string(d.y) + ", " + std::to_string(d.z) + ")";
}

}  // namespace

int evalExpression(const std::string& text, const EvalOptions& options, const std::string& resourceDir) {
    std::unique_ptr<expr::Node> root;
    try {
        root = expr::parse(text);  // every error before the model is built
    } catch (const DiagnosticError& e) {
        std::cerr << e.what() << "\n" << expr::pointAt(text, e.diagnostics().front().column) << "\n";
        return 1;
    }
    OpKernelLibrary kernels(resourceDir + "/kernels");
    std::unique_ptr<GpuModel> model;
    std::unique_ptr<ModelKernelRunner> onModel;
    std::unique_ptr<expr::KernelRunner> runner;
    if (options.onModel) {
        model = openWithProgress("", {options.engine});
        onModel = std::make_unique<ModelKernelRunner>(*model, kernels, options.engine);
        if (options.check) runner = std::make_unique<TeacherForcedRunner>(*onModel);
    } else {
        runner = std::make_unique<ReferenceKernelRunner>(kernels);
    }
    expr::KernelRunner& run = runner ? *runner : *onModel;
    // The model's launches share one RunBudget, as a chat tool call's do: a launch past it is refused (exit 1)
    // with the limit and the advice to split the expression.
    if (onModel) onModel->startCall();
    expr::Evaluation e = expr::evaluate(*root, run);
    if (!options.quiet)
        for (const auto& l : e.launches) {
            const auto& o = l.outcome;
            std::cout << l.source << "\n  " << l.launch.kernel << " grid " << shape(l.launch.launch.grid) << " block "
                      << shape(l.launch.launch.block) << ": " << o.steps << " warp steps";
            if (options.onModel)
                std::cout << ", " << o.tokens << " tokens in " << o.seconds << " s (" << double(o.tokens) / o.seconds
                          << " tokens/s)";
            std::cout << " -> " << expr::formatValue(l.result) << "\n";
        }
    std::cout << expr::formatValue(e.value) << "\n";
    if (options.check && options.onModel)
        std::cout << "check: ok (" << e.launches.size() << (e.launches.size() == 1 ? " launch" : " launches")
                  << ", each with the interpreter's records, registers and memory; teacher-forced, every record "
                     "predicted)\n";
    return 0;
}

}  // namespace qgpu::cli
