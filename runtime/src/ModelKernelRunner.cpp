#include "qgpu/runtime/ModelKernelRunner.h"

#include <algorithm>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Interpreter.h"

namespace qgpu {

expr::KernelOutcome ModelKernelRunner::run(const expr::KernelLaunch& k) {
    Program linked = m_kernels.link(k);
    // The arguments placed in memory (the interpreter's initial state is the memory map filled in).
    std::vector<uint32_t> initial = Interpreter(linked, k.launch).state().global;
    constexpr int kMaxTokens = 200000;
    m_last = m_model.run(linked, k.launch.grid, k.launch.block, initial, kMaxTokens, m_engine);
    if (!m_last.ended)
        throw DiagnosticError(Diagnostic{
            "", 0, 0,
            k.kernel + ": the model did not end the launch within " + std::to_string(kMaxTokens) + " tokens"});
    expr::KernelOutcome out;
    out.global = m_last.global;
    out.tokens = m_last.fed.size() + m_last.written.size();
    out.steps = size_t(std::count_if(m_last.written.begin(), m_last.written.end(),
                                     [](const gpu::Token& t) { return t.kind == gpu::Kind::Exec; }));
    out.seconds = m_last.seconds;
    return out;
}

}  // namespace qgpu
