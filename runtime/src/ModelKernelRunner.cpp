#include "qgpu/runtime/ModelKernelRunner.h"

#include <algorithm>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Interpreter.h"

namespace qgpu {

expr::KernelOutcome ModelKernelRunner::runLinked(const Program& program, const LaunchSpec& launch) {
    // The arguments placed in memory (the interpreter's initial state is the memory map filled in).
    std::vector<uint32_t> initial = Interpreter(program, launch).state().global;
    constexpr int kMaxTokens = 200000;
    m_last = m_model.run(program, launch.grid, launch.block, initial, kMaxTokens, m_engine);
    if (!m_last.ended)
        throw DiagnosticError(Diagnostic{"", 0, 0,
                                         "the model did not end the launch within " + std::to_string(kMaxTokens) +
                                             " tokens; check the kernel for an endless loop"});
    expr::KernelOutcome out;
    out.global = m_last.global;
    out.tokens = m_last.fed.size() + m_last.written.size();
    out.steps = size_t(std::count_if(m_last.written.begin(), m_last.written.end(),
                                     [](const gpu::Token& t) { return t.kind == gpu::Kind::Exec; }));
    out.seconds = m_last.seconds;
    return out;
}

}  // namespace qgpu
