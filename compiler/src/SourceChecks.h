// Checks on the parsed CUDA before code generation, for what would otherwise run away in LLVM or stop it
// with an error about its own internals: `#pragma unroll N` past a limit (N copies of the loop body take
// the compile minutes for large N and could never fit the program ROM), a computed goto and a symbol
// alias (LLVM's NVPTX back end cannot compile them). Each is a located error.
#pragma once

#include <clang/AST/ASTConsumer.h>

#include <memory>

namespace clang {
class DiagnosticsEngine;
}

namespace qgpu {

// An AST consumer that reports the errors above. Placed before code generation, its errors keep the
// optimizer and the back end from running at all.
std::unique_ptr<clang::ASTConsumer> makeSourceChecks(clang::DiagnosticsEngine& diags, int maxUnroll);

}  // namespace qgpu
