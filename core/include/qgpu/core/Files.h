// Reading a whole file, with the error a user sees when it cannot be opened or is too big.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace qgpu {

// Sources, assembly and launch specs are read whole; none of ours comes near this.
constexpr size_t kMaxInputFileBytes = size_t(16) << 20;

// The file's bytes; throws DiagnosticError naming the path when it is not a readable regular file or
// holds more than `maxBytes`.
std::string readFile(const std::filesystem::path& path, size_t maxBytes = kMaxInputFileBytes);

}  // namespace qgpu
