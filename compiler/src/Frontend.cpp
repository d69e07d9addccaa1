#include "qgpu/compiler/Frontend.h"

#include <cctype>

#include "PtxParsing.h"

namespace qgpu {

std::vector<std::string> kernelParameterNames(const std::string& source) {
    size_t g = source.find("__global__");
    if (g == std::string::npos) return {};
    size_t open = source.find('(', g), close = source.find(')', open);
    if (open == std::string::npos || close == std::string::npos) return {};
    std::vector<std::string> names;
    std::string list = source.substr(open + 1, close - open - 1) + ",";
    std::string cur;
    for (char c : list) {
        if (c != ',') {
            cur += c;
            continue;
        }
        size_t end = cur.find_last_not_of(" \t\r\n");
        size_t start = end;
        while (start != std::string::npos && start > 0 &&
               (std::isalnum(static_cast<unsigned char>(cur[start - 1])) || cur[start - 1] == '_'))
            --start;
        if (end != std::string::npos) names.push_back(cur.substr(start, end - start + 1));
        cur.clear();
    }
    if (names.size() == 1 && (names[0] == "void" || names[0].empty())) names.clear();
    return names;
}

CompiledKernel compileKernel(const std::string& source, const std::string& fileName, const MachineSpec& spec,
                             const CudaCompileOptions& options) {
    CudaCompileResult r = compileCudaToPtx(source, fileName, options);
    if (!r.ok) throw DiagnosticError(r.diagnostics);
    CompiledKernel out;
    out.ptx = std::move(r.ptx);
    out.warnings = std::move(r.diagnostics);
    ptx::Module module = ptx::parse(out.ptx, fileName + ".ptx", fileName);
    out.kernel = lowerKernel(module, kernelParameterNames(source), fileName, spec);
    return out;
}

}  // namespace qgpu
