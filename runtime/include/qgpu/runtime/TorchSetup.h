// LibTorch process settings shared by every runtime entry point (threads, device choice).
#pragma once

#include <string>

namespace qgpu {

// The threads the process may use: $QGPU_THREADS, else all cores (tiny models, as in tests, run faster
// on one thread than with threads spinning between two).
int configuredThreads();
// Sets the intra-op thread count once (0 = configuredThreads()).
void initTorch(int threads = 0);
int torchThreads();

// Where a model's layers run. Auto: a CUDA device when one is present, else the CPU.
enum class ComputeDevice { Auto, Cpu, Cuda };
const char* deviceName(ComputeDevice d);  // "auto", "cpu", "cuda"
// "auto", "cpu" or "cuda"; throws DiagnosticError naming `flag` otherwise.
ComputeDevice parseDevice(const std::string& text, const std::string& flag = "--device");
// True when a CUDA device is usable. The first call loads LibTorch's CUDA half, and only when the NVIDIA
// driver's device node exists, so a machine without a GPU never maps the CUDA libraries.
bool cudaAvailable();
// Auto becomes Cuda or Cpu; Cuda without a device throws DiagnosticError saying to use --device cpu.
ComputeDevice resolveDevice(ComputeDevice requested);

// "LibTorch 2.15.0, CPU, 2 threads" and the like, for `qgpu --version` and logs.
std::string torchDescription();

}  // namespace qgpu
