#include "qgpu/runtime/ModelKernelRunner.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/compiler/gpu/Alphabet.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/core/Trace.h"
#include "qgpu/runtime/LaunchCheck.h"

namespace qgpu {

namespace {

// 200000 -> "200,000"
std::string grouped(size_t n) {
    std::string digits = std::to_string(n), out;
    for (size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, s < 10 ? "%.2f" : "%.0f", s);
    return buf;
}

template <class F>
struct AtExit {
    F f;
    ~AtExit() { f(); }
};

}  // namespace

void ModelKernelRunner::startCall() {
    m_callTokens = 0;
    m_callSeconds = 0;
}

expr::KernelOutcome ModelKernelRunner::run(const expr::KernelLaunch& k) {
    m_expressionKernel = k.kernel;
    AtExit clear{[this] { m_expressionKernel.clear(); }};
    return ProgramRunner::run(k);
}

std::string ModelKernelRunner::advice() const {
    if (!m_expressionKernel.empty())
        return "split the expression into smaller ones (fewer or smaller operations) and evaluate them one per call";
    return "write a kernel that does less work per launch (fewer threads or loop iterations), or split the work "
           "over several calls";
}

expr::KernelOutcome ModelKernelRunner::runLinked(const Program& program, const LaunchSpec& launch) {
    // The budget: the seconds inside this call's launches so far, this one's included as it goes.
    auto start = std::chrono::steady_clock::now();
    const double before = m_callSeconds;
    auto spent = [&] {
        return before + std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    };
    AtExit account{[&] { m_callSeconds = spent(); }};  // however the launch ends
    const std::string where = m_expressionKernel.empty() ? program.sourceFile : "<expression>";
    const std::string what = m_expressionKernel.empty() ? "this launch" : "the launch of " + m_expressionKernel;
    auto refuse = [&](const std::string& message) {
        throw DiagnosticError(Diagnostic{where, 0, 0, message + ": " + advice()});
    };
    if (before > m_budget.maxSeconds)
        refuse("this call has already spent " + seconds(before) +
               " s in the GPU model, and one call may take at most " + seconds(m_budget.maxSeconds) + " s");

    // The interpreter's run bounds the model's: a launch that never ends is refused at once (a kernel Qwen
    // wrote may loop forever), and the model stops after as many records as that run writes, so it also
    // tells what the launch will cost before the model starts. A launch the model ends with FAULT (a divergent
    // barrier) is an error at the barrier's line. The same run is the check.
    m_reference = gpu::referenceLaunch(program, launch);
    const gpu::ReferenceLaunch& bound = m_reference;
    size_t fed = gpu::loadTokens(program, launch.grid, launch.block, bound.initialGlobal).size();
    size_t tokens = fed + bound.stream.size();
    if (m_callTokens + tokens > m_budget.maxTokens) {
        size_t steps = size_t(std::count_if(bound.stream.begin(), bound.stream.end(),
                                            [](const gpu::Token& t) { return t.kind == gpu::Kind::Exec; }));
        refuse(what + " would take the GPU model " + grouped(tokens) + " tokens (" + grouped(fed) + " to load it, " +
               grouped(bound.stream.size()) + " records for its " + grouped(steps) + " warp steps)" +
               (m_callTokens ? ", after the " + grouped(m_callTokens) + " of this call's earlier launches" : "") +
               "; one call may use at most " + grouped(m_budget.maxTokens) + " tokens");
    }

    RunProgress progress = [&](size_t, double) { return spent() <= m_budget.maxSeconds; };
    m_last = m_model.run(program, launch.grid, launch.block, bound.initialGlobal, int(bound.stream.size()), m_engine,
                         progress);
    m_callTokens += m_last.fed.size() + m_last.written.size();
    if (m_last.stopped)
        refuse("the GPU model stopped " + what + " after " + grouped(m_last.written.size()) + " of its " +
               grouped(bound.stream.size()) + " records: one call may take at most " + seconds(m_budget.maxSeconds) +
               " s, and this one had taken " + seconds(spent()) + " s");
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
