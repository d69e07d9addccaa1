// Random-weight Qwen3.5 checkpoints for the conformance tests, written by our runtime.
#pragma once

#include <cstdint>
#include <filesystem>

#include "qgpu/runtime/Qwen35Config.h"
#include "qgpu/runtime/Safetensors.h"

namespace qgpu::conformance {

// Writes config.json and the weights of a random model into the existing directory `dir`. Every norm
// weight, A_log, dt_bias and conv tap is random too, so that each term of the forward pass matters.
// Text: Qwen3_5ForCausalLM's layout (model.*, one file). Multimodal: Qwen3_5ForConditionalGeneration's,
// as the published Qwen3.5 checkpoints are: the text tensors under model.language_model., a one-block
// vision tower under model.visual. and a multi-token-prediction head under mtp. (both of which our
// runtime ignores), in two shards with model.safetensors.index.json, the text config nested.
void writeRandomCheckpoint(const std::filesystem::path& dir, const Qwen35Config& config, uint64_t seed, DType dtype,
                           bool multimodal);

}  // namespace qgpu::conformance
