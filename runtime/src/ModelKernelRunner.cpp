#include "qgpu/runtime/ModelKernelRunner.h"

#include <algorithm>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/compiler/gpu/Stream.h"

namespace qgpu {

expr::KernelOutcome ModelKernelRunner::runLinked(const Program& program, const LaunchSpec& launch) {
    // The interpreter's run bounds the model's: a launch that never ends is refused at once (a kernel Qwen
    // wrote may loop forever), and the model stops after as many records as that run writes. A launch the
    // model ends with FAULT (a divergent barrier) is an error at the barrier's line.
    gpu::ReferenceLaunch bound = gpu::referenceLaunch(program, launch);
    m_last = m_model.run(program, launch.grid, launch.block, bound.initialGlobal, int(bound.stream.size()), m_engine);
    if (!m_last.fault.empty()) {
        auto exec = std::find_if(m_last.written.rbegin(), m_last.written.rend(),
                                 [](const gpu::Token& t) { return t.kind == gpu::Kind::Exec && t.mask; });
        int block = exec == m_last.written.rend() ? -1 : exec->block;
        int line =
            block >= 0 && block < int(program.blocks.size()) ? program.blocks[size_t(block)].terminatorLoc.line : 0;
        throw DiagnosticError(Diagnostic{program.sourceFile, line, 0, m_last.fault});
    }
    if (!m_last.ended)
        throw DiagnosticError(Diagnostic{program.sourceFile, 0, 0,
                                         "the model did not end the launch within the " +
                                             std::to_string(bound.stream.size()) +
                                             " records of the interpreter's run: its weights do not compute this "
                                             "machine"});
    expr::KernelOutcome out;
    out.global = m_last.global;
    out.tokens = m_last.fed.size() + m_last.written.size();
    out.steps = size_t(std::count_if(m_last.written.begin(), m_last.written.end(),
                                     [](const gpu::Token& t) { return t.kind == gpu::Kind::Exec; }));
    out.seconds = m_last.seconds;
    return out;
}

}  // namespace qgpu
