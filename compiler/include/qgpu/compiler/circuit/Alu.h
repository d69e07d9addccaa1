// The ALU of docs/isa.md as a scheduled circuit: every ALU, compare and `sel` opcode computed in parallel
// from a, b (and c, the value of rc, for sel), then the result of the one opcode whose bit is true
// selected in a last layer. The GPU's datapath runs one per emitted value.
#pragma once

#include <string>
#include <vector>

#include "qgpu/compiler/circuit/Scheduler.h"
#include "qgpu/core/Isa.h"

namespace qgpu::circuit {

// The opcodes the ALU implements, in the order buildAlu takes their bits.
const std::vector<Opcode>& aluOpcodes();

// rd for `op a, b` (`sel`: c != 0 ? a : b) where opBits[i] is true for the opcode aluOpcodes()[i] (at most
// one). No opcode bit true gives 0.
Scheduler::Value buildAlu(Scheduler& s, Scheduler::Value a, Scheduler::Value b, Scheduler::Value c,
                          const std::vector<Scheduler::Value>& opBits, const std::string& name);

}  // namespace qgpu::circuit
