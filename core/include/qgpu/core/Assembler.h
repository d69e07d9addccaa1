// The `.qasm` text form: assembler and disassembler (grammar in docs/isa.md).
#pragma once

#include <string>
#include <string_view>

#include "qgpu/core/Isa.h"
#include "qgpu/core/MachineSpec.h"

namespace qgpu {

// Throws DiagnosticError naming file:line:col for every problem found.
Program assemble(std::string_view text, const std::string& fileName = "<input>",
                 const MachineSpec& spec = MachineSpec::standard());

std::string disassemble(const Instruction& in, const Program* program = nullptr);
std::string disassemble(const Program& program);

}  // namespace qgpu
