// Whole CUDA sources through the contained compile and the lowering: Clang runs in the compile's worker
// process, so a crash, an abort or a runaway there must come back as a DiagnosticError and never end the
// fuzzer; the lowering of whatever compiles runs here, where the fuzzer sees its coverage. The limits are
// low so that a runaway costs the fuzzer seconds, not minutes.
#include "FuzzTarget.h"
#include "qgpu/compiler/Frontend.h"

void fuzzOne(const std::string& input) {
    qgpu::CudaCompileOptions options;
    options.limits.cpuSeconds = 3;
    options.limits.memoryMiB = 1024;
    qgpu::compileKernel(input, "fuzz.cu", qgpu::MachineSpec::standard(), options);
}
