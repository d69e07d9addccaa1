#include "qgpu/runtime/TorchSetup.h"

#include <ATen/Parallel.h>
#include <ATen/Version.h>
#include <ATen/Context.h>
#include <torch/version.h>

#include <mutex>
#include <thread>

namespace qgpu {

void initTorch(int threads) {
    static std::once_flag once;
    std::call_once(once, [threads] {
        int n = threads > 0 ? threads : int(std::max(1u, std::thread::hardware_concurrency()));
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
