// `qgpu eval EXPR`: the expression language of chat's normal mode, from the command line.
#pragma once

#include <string>

#include "qgpu/runtime/GpuModel.h"

namespace qgpu::cli {

struct EvalOptions {
    bool onModel = true;  // false: the reference interpreter
    Engine engine = Engine::Sparse;
    bool check = false;  // model only: each launch also teacher-forced (every launch is checked against the
                         // interpreter's run in any case: ModelKernelRunner)
    bool quiet = false;  // only the value
};

// Parses and shape-checks `text`, runs each operation as a launch of a ready-made kernel from
// `resourceDir`/kernels and prints every launch and the value.
int evalExpression(const std::string& text, const EvalOptions& options, const std::string& resourceDir);

}  // namespace qgpu::cli
