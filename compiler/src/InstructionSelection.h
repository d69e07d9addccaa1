// PTX instructions -> virtual machine instructions in a CFG. Private to the compiler library.
#pragma once

#include "VirtualProgram.h"
#include "qgpu/compiler/Lowering.h"

namespace qgpu::lowering {

struct Selection {
    VProgram program;
    std::vector<ProgramParam> params;
    std::vector<SharedPlacement> shared;
    int sharedWords = 0;
    std::string kernelName;
};

Selection selectInstructions(const ptx::Module& module, const std::vector<std::string>& paramNames,
                             const std::string& cudaFile, const MachineSpec& spec);

}  // namespace qgpu::lowering
