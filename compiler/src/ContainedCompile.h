// A compile run in the worker process: the request and the result as bytes through its socket, and the
// one located error that stands for a worker that did not finish (crash, abort, stack overflow, a limit).
#pragma once

#include <optional>
#include <string>

#include "WorkerProcess.h"
#include "qgpu/compiler/CudaCompiler.h"

namespace qgpu {

// The stack of the worker's compile thread: deep enough for what overflowed Clang's 8 MiB.
constexpr size_t kCompileStackBytes = size_t(64) << 20;

struct CompileRequest {
    std::string source;
    std::string virtualSource;  // the path Clang knows the source by (in the sandbox, in its stack dump)
    std::string virtualHeader;  // the device header's path in the sandbox
    std::string userFile;       // the name diagnostics give the source
    CudaCompileOptions options;
};

std::string encodeCompileRequest(const CompileRequest& request);
// The request `encodeCompileRequest` wrote; nullopt when the bytes are not one.
std::optional<CompileRequest> decodeCompileRequest(const std::string& bytes);

std::string encodeCompileResult(const CudaCompileResult& result);
// The result `encodeCompileResult` wrote; a result with one error when the bytes are not one.
CudaCompileResult decodeCompileResult(const std::string& bytes, const std::string& userFile);

// The error for a compile whose child ended without a result: what stopped it, where in the source the
// compiler was (the innermost source position in LLVM's stack dump, else the function it was compiling,
// else the file), and what to do.
Diagnostic failedCompileDiagnostic(const JobOutcome& outcome, const CompileRequest& request);

}  // namespace qgpu
