#include "qgpu/compiler/OpKernels.h"

#include <chrono>
#include <filesystem>

#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/Interpreter.h"

namespace qgpu {

Program OpKernelLibrary::link(const expr::KernelLaunch& k) {
    MachineSpec spec = MachineSpec::standard();
    auto it = m_compiled.find(k.kernel);
    if (it == m_compiled.end()) {
        std::filesystem::path file = std::filesystem::path(m_dir) / (k.kernel + ".cu");
        if (!std::filesystem::exists(file))
            throw DiagnosticError(Diagnostic{
                file.string(), 0, 0,
                "the expression kernel " + k.kernel + ".cu is missing: point qgpu at the resources/kernels folder"});
        // An expression rounds every operation on its own (docs/expressions.md): no fused multiply-adds.
        CudaCompileOptions options;
        options.fuseMultiplyAdd = false;
        it = m_compiled.emplace(k.kernel, compileKernel(readFile(file), file.string(), spec, options).kernel.program)
                 .first;
    }
    return linkLaunch(it->second, k.launch, spec).program;
}

expr::KernelOutcome ReferenceKernelRunner::runLinked(const Program& program, const LaunchSpec& launch) {
    auto start = std::chrono::steady_clock::now();
    Interpreter interp(program, launch);
    MachineState end = runToCompletion(interp);
    expr::KernelOutcome out;
    out.global = end.global;
    out.steps = size_t(end.steps);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return out;
}

}  // namespace qgpu
