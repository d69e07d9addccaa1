#include "qgpu/core/Files.h"

#include <fstream>
#include <sstream>

#include "qgpu/core/Diagnostic.h"

namespace qgpu {

std::string readFile(const std::filesystem::path& path, size_t maxBytes) {
    std::error_code ec;
    auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) failAt(path.string(), "no such file; check the path");
    if (!std::filesystem::is_regular_file(status)) failAt(path.string(), "is not a regular file; give a file");
    auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > maxBytes)
        failAt(path.string(), "the file has " + std::to_string(size) + " bytes, more than the limit of " +
                                  std::to_string(maxBytes) + "; give a smaller input");
    std::ifstream in(path, std::ios::binary);
    if (!in) failAt(path.string(), "cannot open the file; check its permissions");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace qgpu
