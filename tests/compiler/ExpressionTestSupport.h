// Expressions evaluated on the reference interpreter, with the suite's ready-made kernels compiled once.
#pragma once

#include <string>

#include "qgpu/compiler/OpKernels.h"
#include "qgpu/core/Expression.h"

namespace qgpu::testing {

inline OpKernelLibrary& opKernels() {
    static OpKernelLibrary lib(QGPU_SOURCE_DIR "/resources/kernels");
    return lib;
}

inline expr::Evaluation evaluateOnInterpreter(const std::string& text) {
    ReferenceKernelRunner runner(opKernels());
    return expr::evaluate(text, runner);
}

}  // namespace qgpu::testing
