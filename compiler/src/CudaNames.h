// CUDA names the machine's CUDA lacks, each with what to write instead: Clang's "use of undeclared
// identifier" (or "unknown type name", or a missing CUDA header) for such a name becomes that advice.
// A table consulted only on the error path: declaring the names in the device header would cost every
// compile the time to parse them.
#pragma once

#include <string>

namespace qgpu {

// Clang's message for a diagnostic, with an undeclared CUDA name explained; any other message unchanged.
std::string explainCudaName(const std::string& message);

}  // namespace qgpu
