// User-facing errors as values: where it happened and what to do about it.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace qgpu {

struct Diagnostic {
    std::string file;  // may be empty
    int line = 0;      // 1-based, 0 = no position
    int column = 0;
    std::string message;
    bool warning = false;

    std::string format() const;  // "file:line:col: error: message" (or "warning:")
};

// Thrown by core entry points for input a user can get wrong; carries every diagnostic found.
class DiagnosticError : public std::runtime_error {
public:
    explicit DiagnosticError(std::vector<Diagnostic> diags);
    explicit DiagnosticError(Diagnostic diag);
    const std::vector<Diagnostic>& diagnostics() const { return m_diags; }

private:
    std::vector<Diagnostic> m_diags;
};

std::string formatAll(const std::vector<Diagnostic>& diags);

// A diagnostic in `file` at the line and column (1-based) of byte `offset` of `text`.
Diagnostic diagnosticAtOffset(const std::string& file, std::string_view text, size_t offset, std::string message);

// Throws a DiagnosticError about `place` (a file, a directory, a flag) with no line or column.
[[noreturn]] void failAt(const std::string& place, const std::string& message);

}  // namespace qgpu
