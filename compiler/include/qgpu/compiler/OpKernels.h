// The expression language's ready-made kernels (resources/kernels/op_*.cu), compiled by Clang once each,
// and the backends that run linked programs: the interpreter here, the GPU model in the runtime.
#pragma once

#include <map>
#include <string>

#include "qgpu/core/Expression.h"
#include "qgpu/core/Isa.h"

namespace qgpu {

class OpKernelLibrary {
public:
    // `kernelDir` holds <kernel>.cu for every kernel planLaunch names.
    explicit OpKernelLibrary(std::string kernelDir) : m_dir(std::move(kernelDir)) {}
    // The kernel compiled (once) and linked against the launch. Throws DiagnosticError when the file is
    // missing or does not compile.
    Program link(const expr::KernelLaunch& k);

private:
    std::string m_dir;
    std::map<std::string, Program> m_compiled;
};

// A backend for linked programs; expression launches name their kernel, which the library links.
class ProgramRunner : public expr::KernelRunner {
public:
    explicit ProgramRunner(OpKernelLibrary& kernels) : m_kernels(kernels) {}
    expr::KernelOutcome run(const expr::KernelLaunch& k) override { return runLinked(m_kernels.link(k), k.launch); }
    // Runs `program` (linked against `launch`) to its end. Throws DiagnosticError when it cannot.
    virtual expr::KernelOutcome runLinked(const Program& program, const LaunchSpec& launch) = 0;
    OpKernelLibrary& kernels() { return m_kernels; }

private:
    OpKernelLibrary& m_kernels;
};

class ReferenceKernelRunner : public ProgramRunner {
public:
    using ProgramRunner::ProgramRunner;
    expr::KernelOutcome runLinked(const Program& program, const LaunchSpec& launch) override;
};

}  // namespace qgpu
