#include "qgpu/runtime/TorchSetup.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <ATen/Context.h>
#include <torch/version.h>

#include <cstdlib>
#include <mutex>
#include <thread>

namespace qgpu {

void initTorch(int threads) {
    static std::once_flag once;
    std::call_once(once, [threads] {
        // QGPU_THREADS overrides the core count: tiny models (tests) run faster on one thread than with
        // OpenMP spinning between two.
        const char* env = std::getenv("QGPU_THREADS");
        int n = threads > 0 ? threads
                : env       ? std::max(1, std::atoi(env))
                            : int(std::max(1u, std::thread::hardware_concurrency()));
        at::set_num_threads(n);
    });
}

int torchThreads() { return at::get_num_threads(); }

bool cudaAvailable() { return at::hasCUDA(); }

std::string torchDescription() {
    return "LibTorch " + std::string(TORCH_VERSION) + ", " + (cudaAvailable() ? "CUDA" : "CPU") + ", " +
           std::to_string(torchThreads()) + " threads";
}

}  // namespace qgpu
