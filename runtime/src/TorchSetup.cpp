#include "qgpu/runtime/TorchSetup.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <dlfcn.h>
#include <torch/version.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <thread>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Environment.h"

namespace qgpu {

int configuredThreads() {
    return environmentInteger("QGPU_THREADS", int(std::max(1u, std::thread::hardware_concurrency())), 1, 1024);
}

void initTorch(int threads) {
    static std::once_flag once;
    std::call_once(once, [threads] { at::set_num_threads(threads > 0 ? threads : configuredThreads()); });
}

int torchThreads() { return at::get_num_threads(); }

const char* deviceName(ComputeDevice d) {
    switch (d) {
        case ComputeDevice::Auto: return "auto";
        case ComputeDevice::Cpu: return "cpu";
        case ComputeDevice::Cuda: return "cuda";
    }
    return "?";
}

ComputeDevice parseDevice(const std::string& text, const std::string& flag) {
    for (ComputeDevice d : {ComputeDevice::Auto, ComputeDevice::Cpu, ComputeDevice::Cuda})
        if (text == deviceName(d)) return d;
    throw DiagnosticError(Diagnostic{"", 0, 0, flag + " must be cpu, cuda or auto, not '" + text + "'"});
}

bool cudaAvailable() {
    // The CUDA half registers its kernels and hooks with LibTorch when it is loaded (it is not linked, so
    // that CPU-only processes stay small and start fast).
    static const bool available = [] {
        if (!std::filesystem::exists("/dev/nvidiactl")) return false;
        if (!dlopen(QGPU_TORCH_CUDA_LIBRARY, RTLD_NOW | RTLD_GLOBAL)) return false;
        return at::hasCUDA();
    }();
    return available;
}

ComputeDevice resolveDevice(ComputeDevice requested) {
    if (requested == ComputeDevice::Cpu) return ComputeDevice::Cpu;
    if (cudaAvailable()) return ComputeDevice::Cuda;
    if (requested == ComputeDevice::Auto) return ComputeDevice::Cpu;
    throw DiagnosticError(Diagnostic{
        "", 0, 0,
        "--device cuda: no CUDA device is usable on this machine (no NVIDIA driver or GPU); use --device cpu"});
}

std::string torchDescription() {
    return "LibTorch " + std::string(TORCH_VERSION) + ", " + (cudaAvailable() ? "CUDA" : "CPU") + ", " +
           std::to_string(torchThreads()) + " threads";
}

}  // namespace qgpu
