// CUDA -> PTX inside the process through the Clang 19 libraries (we play NVRTC's role).
#pragma once

#include <string>
#include <vector>

#include "qgpu/core/Diagnostic.h"

namespace qgpu {

struct CudaCompileOptions {
    int optLevel = 2;                  // -O0..-O3
    std::string deviceHeader;          // contents of qgpu_cuda.h; empty = the copy built into the binary
    std::vector<std::string> defines;  // NAME or NAME=VALUE
};

struct CudaCompileResult {
    bool ok = false;
    std::string ptx;
    std::vector<Diagnostic> diagnostics;  // errors and warnings, positions in the user's file
};

// `fileName` is how diagnostics name the source (the file need not exist on disk). The compile sees a file
// system in memory holding only the source and the device header: an #include of any other file, a host
// path included, is "file not found". Sources over 1 MiB are refused.
CudaCompileResult compileCudaToPtx(const std::string& source, const std::string& fileName,
                                   const CudaCompileOptions& options = {});

std::string clangVersionString();

}  // namespace qgpu
