// Reading a whole file, with the error a user sees when it cannot be opened.
#pragma once

#include <filesystem>
#include <string>

namespace qgpu {

// The file's bytes; throws DiagnosticError naming the path when it cannot be opened.
std::string readFile(const std::filesystem::path& path);

}  // namespace qgpu
