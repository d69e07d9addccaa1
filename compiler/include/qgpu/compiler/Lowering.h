// PTX -> machine blocks: instruction selection, register allocation into r1..r15, block layout for the
// min-PC reconvergence rule, and the line map CUDA line <-> PTX line <-> block/slot.
#pragma once

#include <string>
#include <vector>

#include "qgpu/compiler/Ptx.h"
#include "qgpu/core/Isa.h"
#include "qgpu/core/MachineSpec.h"

namespace qgpu {

struct LineMapEntry {
    int block = 0;
    int slot = 0;  // index in the block body; == body.size() for the terminator
    int cudaLine = 0;
    int ptxLine = 0;
};

struct SharedPlacement {
    std::string name;  // PTX symbol of the __shared__ array
    int base = 0;      // word address in shared memory
    int words = 0;
};

struct LoweredKernel {
    std::string name;  // the kernel's name as written in CUDA
    Program program;   // params filled; arguments are referenced positionally (#i)
    std::vector<SharedPlacement> shared;
    std::vector<LineMapEntry> lineMap;
    int registersUsed = 0;
    int spilledValues = 0;     // values the register allocator keeps in local memory
    std::string debugWarning;  // why a -g build lists no variables, when its debug information is unreadable
};

// Lowers the module's only kernel. `paramNames` (may be empty) names the parameters for messages and
// the debugger; `callDepth` is how many calls of recursive functions a thread may have in progress. Throws
// DiagnosticError naming the CUDA file:line and the PTX line of what cannot run.
LoweredKernel lowerKernel(const ptx::Module& module, const std::vector<std::string>& paramNames,
                          const std::string& cudaFile, const MachineSpec& spec = MachineSpec::standard(),
                          int callDepth = 16);

// The listing `qgpu compile --emit blocks` prints and golden tests compare: a header with blocks,
// registers, shared words and parameters, then the disassembly with each block's CUDA lines.
std::string formatLowered(const LoweredKernel& kernel);
// What `qgpu compile --emit variables` prints: each CUDA variable of a -g build, its type, scope and place.
std::string formatVariables(const LoweredKernel& kernel);

}  // namespace qgpu
