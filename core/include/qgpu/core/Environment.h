// The environment variables qgpu reads, each through one of these: a value that does not parse is refused
// with a message naming the variable and what it takes, never read as something else.
#pragma once

#include <optional>
#include <string>

namespace qgpu {

// The variable's value; nullopt when it is unset or empty.
std::optional<std::string> environmentText(const char* name);

// A whole number from `min` to `max`; `fallback` when the variable is unset or empty. Anything else (abc,
// 1.5, 8x, out of range) throws DiagnosticError naming the variable and the range.
int environmentInteger(const char* name, int fallback, int min, int max);

// The user's cache folder: $XDG_CACHE_HOME, else $HOME/.cache; throws DiagnosticError when neither is set.
std::string userCacheDir();

}  // namespace qgpu
