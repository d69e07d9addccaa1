// A breakpoint's condition or a watch, as C writes it: integers, names (threadIdx.x, r3, a debug build's
// variables), array elements (out[i + 1]), ( ), ! and unary -, * / %, + -, < <= > >= == !=, && and ||.
// Evaluated for one thread at a time.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace qgpu {

// A name's value for the thread, or nothing when the thread has no such name there.
using NameLookup = std::function<std::optional<int64_t>(const std::string& name)>;

struct ConditionResult {
    bool holds = false;
    int64_t value = 0;
    std::string error;  // what is wrong with the text, and where ("column 7: ..."); empty when it evaluated
};

ConditionResult evaluateCondition(const std::string& text, const NameLookup& lookup);

}  // namespace qgpu
