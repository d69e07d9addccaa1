// The GPU model's dense engine on LibTorch's Qwen35Model (GpuModel::build's `dense`).
#pragma once

#include "qgpu/runtime/GpuModel.h"

namespace qgpu {

std::unique_ptr<DenseGpu> makeDenseGpu(const Qwen35Config& config, const TensorSource& tensor);

}  // namespace qgpu
