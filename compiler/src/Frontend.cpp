#include "qgpu/compiler/Frontend.h"

#include <cctype>

#include "PtxParsing.h"

namespace qgpu {

namespace {

// The '(' that opens the parameter list of the function declared at `from`: the first one not opening an
// attribute's arguments (`__launch_bounds__(128)`, `__attribute__((...))`).
size_t parameterListOpen(const std::string& source, size_t from) {
    for (size_t open = source.find('(', from); open != std::string::npos; open = source.find('(', open + 1)) {
        size_t end = source.find_last_not_of(" \t\r\n", open - 1), start = end;
        while (start > from &&
               (std::isalnum(static_cast<unsigned char>(source[start - 1])) || source[start - 1] == '_'))
            --start;
        std::string before = end == std::string::npos ? "" : source.substr(start, end - start + 1);
        if (before != "__launch_bounds__" && before != "__attribute__") return open;
        for (int depth = 0; open < source.size(); ++open) {  // past the attribute's balanced parentheses
            depth += source[open] == '(' ? 1 : source[open] == ')' ? -1 : 0;
            if (depth == 0) break;
        }
    }
    return std::string::npos;
}

}  // namespace

std::vector<std::string> kernelParameterNames(const std::string& source) {
    size_t g = source.find("__global__");
    if (g == std::string::npos) return {};
    size_t open = parameterListOpen(source, g);
    size_t close = open == std::string::npos ? open : source.find(')', open);
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
    out.kernel = lowerKernel(module, kernelParameterNames(source), fileName, spec, options.callDepth);
    if (!out.kernel.debugWarning.empty()) out.warnings.push_back({fileName, 0, 0, out.kernel.debugWarning, true});
    if (options.debugInfo && options.optLevel > 0)
        out.warnings.push_back({fileName, 0, 0,
                                "-g with -O" + std::to_string(options.optLevel) +
                                    " keeps line tables only: Clang keeps where variables live only without "
                                    "optimization; build with -O0 -g to see them",
                                true});
    return out;
}

}  // namespace qgpu
