// PTX instructions -> virtual machine instructions in a CFG. Private to the compiler library.
#pragma once

#include <map>
#include <string>

#include "VirtualProgram.h"
#include "qgpu/compiler/Lowering.h"

namespace qgpu::lowering {

struct Selection {
    VProgram program;
    std::vector<ProgramParam> params;
    std::vector<SharedPlacement> shared;
    int sharedWords = 0;
    std::string dynamicShared;                // an extern __shared__ array's name, or ""
    int localWords = 0;                       // local memory per thread
    std::map<std::string, int> localOffsets;  // the frame word where each .local array starts
    std::vector<ProgramGlobal> globals;
    std::string kernelName;
    // The kernel has an fma routine beside an add or multiply routine: selecting it again with
    // addMulThroughFma drops the latter two.
    bool fmaBesideAddOrMul = false;
    bool usesFma = false;
};

// addMulThroughFma: float adds and multiplies enter the fma routine (a + b = fma(a, 1, b), a * b =
// fma(a, b, -0) or, rounding down, fma(a, b, +0): the same bits), so a kernel holds one routine instead of
// three, each add or multiply taking the fma's longer path.
Selection selectInstructions(const ptx::Module& module, const std::vector<std::string>& paramNames,
                             const std::string& cudaFile, const MachineSpec& spec, int callDepth = 16,
                             bool addMulThroughFma = false);

}  // namespace qgpu::lowering
