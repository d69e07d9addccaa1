// The token stream the reference interpreter implies for a launch: what the model must write, token for
// token (the replay check compares against it).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/compiler/gpu/Alphabet.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineState.h"

namespace qgpu::gpu {

struct ReferenceLaunch {
    std::vector<Token> stream;                        // EXEC, VAL ... records and the final END or FAULT
    std::string fault;                                // the interpreter's fault, when the launch ends in one
    std::vector<std::array<uint32_t, 16>> registers;  // each thread's registers at the end, in slot order
    std::vector<uint32_t> initialGlobal, global;      // global memory before and after
    std::vector<std::vector<uint32_t>> shared;        // each thread block's shared memory after
    std::vector<StepEvent> warned;                    // the steps that warned (locatedWarnings reads them)
};

// The default bound on a launch's warp steps (`--max-steps` changes it in the CLI).
inline constexpr int kDefaultMaxSteps = 100000;

// Runs `program` (linked against `launch`) in the interpreter. A launch that faults (a barrier reached by part
// of a warp) ends with the faulting step's records and a FAULT record. Throws DiagnosticError when the
// launch does not end within `maxSteps` warp steps: the model could never end it either, so this is also
// the model backend's bound on a launch.
ReferenceLaunch referenceLaunch(const Program& program, const LaunchSpec& launch, int maxSteps = kDefaultMaxSteps);

// The replay check's verdict: the index of the first record where the streams differ (or where one
// ends), or -1 when they are identical.
long firstMismatch(const std::vector<Token>& model, const std::vector<Token>& reference);
// Records [from, from + count) as text, space separated.
std::string formatTokens(const std::vector<Token>& tokens, size_t from = 0, size_t count = SIZE_MAX);

}  // namespace qgpu::gpu
