#include "qgpu/compiler/Lowering.h"

#include "InstructionSelection.h"
#include "Passes.h"
#include "qgpu/core/Diagnostic.h"

namespace qgpu {

LoweredKernel lowerKernel(const ptx::Module& module, const std::vector<std::string>& paramNames,
                          const std::string& cudaFile, const MachineSpec& spec) {
    lowering::Selection sel = lowering::selectInstructions(module, paramNames, cudaFile, spec);
    lowering::simplifyControlFlow(sel.program);
    lowering::foldConstants(sel.program);
    LoweredKernel out;
    out.name = sel.kernelName;
    out.shared = sel.shared;
    out.registersUsed = lowering::allocateRegisters(sel.program, spec.usableRegisters(), cudaFile);
    lowering::simplifyControlFlow(sel.program);  // coalesced moves can leave blocks empty
    lowering::layoutBlocks(sel.program, spec.slotsPerBlock, out.program, out.lineMap);
    out.program.sharedWords = sel.sharedWords;
    out.program.params = sel.params;
    int blocks = int(out.program.blocks.size());
    if (blocks > spec.romBlocks)
        throw DiagnosticError(Diagnostic{cudaFile, 0, 0,
                                         "the kernel needs " + std::to_string(blocks) +
                                             " machine blocks but the ROM holds " + std::to_string(spec.romBlocks) +
                                             "; make the kernel smaller"});
    return out;
}

}  // namespace qgpu
