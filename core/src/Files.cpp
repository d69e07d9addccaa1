#include "qgpu/core/Files.h"

#include <fstream>
#include <sstream>

#include "qgpu/core/Diagnostic.h"

namespace qgpu {

std::string readFile(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw DiagnosticError(Diagnostic{path.string(), 0, 0, "cannot open the file; check the path"});
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

}  // namespace qgpu
