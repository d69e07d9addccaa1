// Device functions that Clang did not inline, inlined at each call site (Inlining.cpp). Private to the
// compiler library.
#pragma once

#include <cstdint>
#include <string>

#include "qgpu/compiler/Ptx.h"

namespace qgpu::lowering {

struct InlinedKernel {
    ptx::Function function;
    int64_t callStackBytes = 0;  // the local array kCallStackArray that recursive calls need, or 0
};

// The kernel with every call of a function that is not recursive replaced by the callee's body, its
// registers and labels renamed, and every recursive function placed once and called on the call stack
// (CallStack.h); throws DiagnosticError at the call for calls through pointers and functions the module
// lacks.
// `callDepth`: the calls of recursive functions a thread may have in progress at once.
InlinedKernel inlineCalls(const ptx::Module& module, const ptx::Function& kernel, const std::string& cudaFile,
                          int callDepth);

}  // namespace qgpu::lowering
