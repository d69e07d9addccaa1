#include "qgpu/core/Diagnostic.h"

namespace qgpu {

std::string Diagnostic::format() const {
    std::string out;
    if (!file.empty()) out += file + ":";
    if (line > 0) {
        out += std::to_string(line) + ":";
        if (column > 0) out += std::to_string(column) + ":";
    }
    if (!out.empty()) out += " ";
    return out + (warning ? "warning: " : "error: ") + message;
}

Diagnostic diagnosticAtOffset(const std::string& file, std::string_view text, size_t offset, std::string message) {
    int line = 1, column = 1;
    for (size_t i = 0; i < offset && i < text.size(); ++i) {
        if (text[i] == '\n') {
            ++line;
            column = 1;
        } else {
            ++column;
        }
    }
    return Diagnostic{file, line, column, std::move(message)};
}

std::string formatAll(const std::vector<Diagnostic>& diags) {
    std::string out;
    for (const auto& d : diags) {
        if (!out.empty()) out += "\n";
        out += d.format();
    }
    return out;
}

DiagnosticError::DiagnosticError(std::vector<Diagnostic> diags)
    : std::runtime_error(formatAll(diags)), m_diags(std::move(diags)) {}

DiagnosticError::DiagnosticError(Diagnostic diag) : DiagnosticError(std::vector<Diagnostic>{std::move(diag)}) {}

void failAt(const std::string& place, const std::string& message) {
    throw DiagnosticError(Diagnostic{place, 0, 0, message});
}

}  // namespace qgpu
