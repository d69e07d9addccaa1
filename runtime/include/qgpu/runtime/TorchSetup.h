// LibTorch process settings shared by every runtime entry point (threads, device choice).
#pragma once

#include <string>

namespace qgpu {

// Sets the intra-op thread count once (0 = $QGPU_THREADS, else all cores; Debian's LibTorch defaults to 1).
void initTorch(int threads = 0);
int torchThreads();
bool cudaAvailable();
// "LibTorch 1.13.1, CPU, 2 threads" and the like, for `qgpu --version` and logs.
std::string torchDescription();

}  // namespace qgpu
