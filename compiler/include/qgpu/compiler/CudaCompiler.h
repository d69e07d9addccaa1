// CUDA -> PTX inside the process through the Clang 19 libraries (we play NVRTC's role).
#pragma once

#include <string>
#include <vector>

#include "qgpu/core/Diagnostic.h"

namespace qgpu {

// What one compile may take. It runs in a child process (a crash, an abort, a stack overflow or a runaway
// in Clang or LLVM ends the child, not the caller), on a 64 MiB stack, under these limits. The defaults
// come from QGPU_COMPILE_SECONDS, QGPU_COMPILE_MEMORY_MIB and QGPU_MAX_UNROLL when set (how the studio and
// chat raise them); qgpu's --compile-seconds, --compile-memory and --max-unroll set them for one command.
struct CompileLimits {
    int cpuSeconds = 20;   // CPU time of the compile
    int memoryMiB = 2048;  // memory it may add to what the caller holds
    int maxUnroll = 1024;  // the largest count `#pragma unroll N` may ask for

    static CompileLimits fromEnvironment();
};

struct CudaCompileOptions {
    int optLevel = 2;  // -O0..-O3
    // Contract a * b + c into one fused multiply-add wherever Clang's CUDA default (-ffp-contract=fast, like
    // nvcc's --fmad=true) does; false keeps each product and sum rounded on its own (--fmad=false).
    bool fuseMultiplyAdd = true;
    // -g: full debug information, from which lowering reads where each CUDA variable lives. Clang keeps
    // variable locations for the GPU only without optimization, so this pays off at -O0 (nvcc's -G also
    // compiles at -O0); at -O1..-O3 it keeps line tables only, which every build has.
    bool debugInfo = false;
    // How many calls of recursive functions a thread may have in progress at once (--call-depth): each
    // level takes a frame of the program's largest call in every thread's local memory.
    int callDepth = 16;
    std::string deviceHeader;          // contents of qgpu_cuda.h; empty = the copy built into the binary
    std::vector<std::string> defines;  // NAME or NAME=VALUE
    CompileLimits limits = CompileLimits::fromEnvironment();
};

struct CudaCompileResult {
    bool ok = false;
    std::string ptx;
    std::vector<Diagnostic> diagnostics;  // errors and warnings, positions in the user's file
};

// `fileName` is how diagnostics name the source (the file need not exist on disk). The compile sees a file
// system in memory holding only the source and the device header: an #include of any other file, a host
// path included, is "file not found". Sources over 1 MiB are refused. A compile that crashes or passes a
// limit gives one error located where the compiler was in the source (else at the file), saying which
// limit and the flag that raises it; `#pragma clang __debug` crash pragmas do nothing.
CudaCompileResult compileCudaToPtx(const std::string& source, const std::string& fileName,
                                   const CudaCompileOptions& options = {});

std::string clangVersionString();

}  // namespace qgpu
