// The whole CUDA path in one call: source -> PTX -> machine blocks, with every diagnostic as a value.
#pragma once

#include <string>

#include "qgpu/compiler/CudaCompiler.h"
#include "qgpu/compiler/Lowering.h"

namespace qgpu {

struct CompiledKernel {
    std::string ptx;
    LoweredKernel kernel;
    std::vector<Diagnostic> warnings;
};

// Throws DiagnosticError (file:line:col of the user's source) for code that does not compile or cannot
// run on the machine.
CompiledKernel compileKernel(const std::string& source, const std::string& fileName,
                             const MachineSpec& spec = MachineSpec::standard(), const CudaCompileOptions& options = {});

// Parameter names of the file's __global__ function, read from the source text (for messages and the
// debugger; launches match arguments by position). Empty when the signature cannot be read.
std::vector<std::string> kernelParameterNames(const std::string& source);

}  // namespace qgpu
