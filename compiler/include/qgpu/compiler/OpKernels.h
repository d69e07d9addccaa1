// The expression language's ready-made kernels (resources/kernels/op_*.cu), compiled by Clang once each,
// and the reference backend that runs their launches on the interpreter.
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

class ReferenceKernelRunner : public expr::KernelRunner {
public:
    explicit ReferenceKernelRunner(OpKernelLibrary& kernels) : m_kernels(kernels) {}
    expr::KernelOutcome run(const expr::KernelLaunch& k) override;

private:
    OpKernelLibrary& m_kernels;
};

}  // namespace qgpu
