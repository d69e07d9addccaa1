// The CUDA variables of a -g build, read from the DWARF that Clang writes into the PTX's debug sections.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "qgpu/compiler/Ptx.h"
#include "qgpu/core/Isa.h"

namespace qgpu::lowering {

// The parameters and variables of the kernel and of the device functions in its module (inlined into it),
// the kernel's first, each with its function, type, scope's CUDA lines and place. At -O0 Clang keeps every variable in
// its function's local depot, so it has a place in the thread's frame (`localWords`: the frame word where each .local
// array starts); a variable the debug information gives no such place is gone. Empty when the PTX has no debug
// information; debug information this reader cannot follow gives none, and `warning` says why.
std::vector<ProgramVariable> programVariables(const ptx::Module& module, const std::map<std::string, int>& localWords,
                                              std::string& warning);

}  // namespace qgpu::lowering
