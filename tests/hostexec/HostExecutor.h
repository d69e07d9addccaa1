// The host executor: every kernel of resources/kernels compiled as host C++ (host_cuda.h) and run with one
// std::thread per CUDA thread. Independent of the reference interpreter and the CUDA lowering; its results
// are the "expect" fields of the kernels' launch specs.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "qgpu/core/Launch.h"

// Names of the kernels compiled in (resources/kernels/NAME.cu at configure time), sorted.
std::vector<std::string> hostKernelNames();

// Runs kernel `name` over `launch` and returns the final contents of every array argument, in argument
// order. Throws std::runtime_error for an unknown name or arguments that do not fit the kernel.
std::vector<std::pair<std::string, std::vector<int64_t>>> runOnHost(const std::string& name,
                                                                    const qgpu::LaunchSpec& launch);

// The texts of the last runOnHost's printf calls, sorted (the check compares them with "expect"."printf").
std::vector<std::string> hostPrintedTexts();
