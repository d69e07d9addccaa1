// A -g build's CUDA variables (Program::variables) as one thread sees them, read from its local-memory frame.
#pragma once

#include <optional>
#include <string>

#include "qgpu/core/Isa.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineSpec.h"
#include "qgpu/core/MachineState.h"

namespace qgpu {

// The variable's value in thread `slot` (globalWarp * lanesPerWarp + lane): a scalar sign- or zero-extended
// as its type says (a float's bits), a pointer's byte address; nothing for a struct, an array or a variable
// that is gone.
std::optional<int64_t> readVariable(const MachineState& state, const MemoryMap& map, const Program& program,
                                    const ProgramVariable& v, int slot);

// As a person reads it: "17", "2.5", "true", a pointer as "&x[3]" (an element of a launch array), "nullptr"
// or a byte address in hex, a struct or array as its bytes in hex, "(optimized out)" when it is gone.
std::string formatVariable(const MachineState& state, const MemoryMap& map, const Program& program,
                           const ProgramVariable& v, int slot);

// Every thread's variables, a thread a line: "thread 5 (block 1, 1): i = 5, s = 10, out = &out[0]", a device
// function's named after it ("helper::t = 3").
std::string formatThreadVariables(const MachineState& state, const MemoryMap& map, const Program& program,
                                  const LaunchSpec& launch, const MachineSpec& spec);

}  // namespace qgpu
