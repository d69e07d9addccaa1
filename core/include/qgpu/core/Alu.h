// The ALU and compare instructions of docs/isa.md as one pure function: the reference interpreter and
// the circuit compiler's ALU tests both use it.
#pragma once

#include <cstdint>
#include <optional>

#include "qgpu/core/Isa.h"

namespace qgpu {

// rd for `op a, b`; nullopt for an opcode that is no pure function of (a, b) (sel, sreg, memory,
// shuffles, terminators).
std::optional<uint32_t> aluResult(Opcode op, uint32_t a, uint32_t b);

}  // namespace qgpu
