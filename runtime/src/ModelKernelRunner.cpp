#include "qgpu/runtime/ModelKernelRunner.h"

#include <algorithm>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/core/Trace.h"
#include "qgpu/runtime/LaunchCheck.h"

namespace qgpu {

expr::KernelOutcome ModelKernelRunner::runLinked(const Program& program, const LaunchSpec& launch) {
    // The interpreter's run bounds the model's: a launch that never ends is refused at once (a kernel Qwen
    // wrote may loop forever), and the model stops after as many records as that run writes. A launch the
    // model ends with FAULT (a divergent barrier) is an error at the barrier's line. The same run is the check.
    m_reference = gpu::referenceLaunch(program, launch);
    const gpu::ReferenceLaunch& bound = m_reference;
    m_last = m_model.run(program, launch.grid, launch.block, bound.initialGlobal, int(bound.stream.size()), m_engine);
    if (!m_last.fault.empty())
        throw DiagnosticError(
            Diagnostic{program.sourceFile, terminatorLine(program, m_last.faultBlock), 0, m_last.fault});
    if (!m_last.ended)
        throw DiagnosticError(Diagnostic{program.sourceFile, 0, 0,
                                         "the model did not end the launch within the " +
                                             std::to_string(bound.stream.size()) +
                                             " records of the interpreter's run: its weights do not compute this "
                                             "machine"});
    if (LaunchCheck c = compareLaunch(m_last, bound); !c.exact())
        throw DiagnosticError(Diagnostic{program.sourceFile, 0, 0,
                                         "the model's run of this launch is not the interpreter's (" + c.what +
                                             "): a fault of the compiled GPU; please report it with the kernel"});
    expr::KernelOutcome out;
    out.global = m_last.global;
    out.tokens = m_last.fed.size() + m_last.written.size();
    out.steps = size_t(std::count_if(m_last.written.begin(), m_last.written.end(),
                                     [](const gpu::Token& t) { return t.kind == gpu::Kind::Exec; }));
    out.seconds = m_last.seconds;
    return out;
}

}  // namespace qgpu
