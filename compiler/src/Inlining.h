// Device functions that Clang did not inline, inlined at each call site (Inlining.cpp). Private to the
// compiler library.
#pragma once

#include <string>

#include "qgpu/compiler/Ptx.h"

namespace qgpu::lowering {

// The kernel with every call replaced by the callee's body, its registers and labels renamed; throws
// DiagnosticError at the call for recursion, calls through pointers and functions the module lacks.
ptx::Function inlineCalls(const ptx::Module& module, const ptx::Function& kernel, const std::string& cudaFile);

}  // namespace qgpu::lowering
