// The token stream the reference interpreter implies for a launch: what the model must write, token for
// token (the replay check compares against it).
#pragma once

#include <array>
#include <vector>

#include "qgpu/compiler/gpu/Alphabet.h"

namespace qgpu::gpu {

struct ReferenceLaunch {
    std::vector<Token> stream;                        // EXEC, VAL ... records and the final END
    std::vector<std::array<uint32_t, 16>> registers;  // each lane's registers at the end
};

// Runs `program` (linked, no arguments) on one warp of `lanes` threads in the interpreter.
ReferenceLaunch referenceLaunch(const Program& program, int lanes);

}  // namespace qgpu::gpu
