// A Qwen3.5 text model in LibTorch: Gated DeltaNet and gated full-attention layers, SwiGLU MLPs,
// zero-centred RMSNorms, tied or untied LM head; its linear weights in fp32, bf16 or 8 bits, on the CPU or a
// CUDA device. Torch stays behind this header.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "qgpu/runtime/Qwen35Config.h"
#include "qgpu/runtime/Safetensors.h"
#include "qgpu/runtime/TorchSetup.h"

namespace qgpu {

// Everything a model carries between calls: per-layer conv and recurrent states of the Gated DeltaNet
// layers, the key/value cache of the attention layers, and the position. The recurrent state is readable
// and writable from outside (the debugger decodes the compiled GPU from it).
class ModelState {
public:
    ModelState();
    ~ModelState();
    ModelState(ModelState&&) noexcept;
    ModelState& operator=(ModelState&&) noexcept;
    ModelState clone() const;

    int position() const;
    // [linear_num_value_heads, key_head_dim, value_head_dim], row-major; throws for a full-attention layer.
    std::vector<float> recurrentState(int layer) const;
    void setRecurrentState(int layer, const std::vector<float>& values);

    struct Impl;
    std::unique_ptr<Impl> impl;
};

// How the linear weights (projections, embedding, LM head) are held and multiplied. Norms, the
// convolution and the delta rule always compute in fp32.
enum class WeightFormat {
    F32,   // fp32 copies: the reference path (the conformance tests, the GPU's dense engine)
    BF16,  // bf16, memory-mapped when the checkpoint stores bf16; projections multiply in bf16
    Q8,    // int8 with one bf16 scale per row (absmax / 127, like llama.cpp's Q8_0); activations in bf16
};
const char* weightFormatName(WeightFormat f);  // "f32", "bf16", "q8"
// "f32", "bf16" or "q8"; throws DiagnosticError naming `flag` otherwise.
WeightFormat parseWeightFormat(const std::string& text, const std::string& flag = "--weights");

struct ModelLoadOptions {
    WeightFormat weights = WeightFormat::F32;
    ComputeDevice device = ComputeDevice::Cpu;
    // A combined checkpoint (`qgpu build --host`, with splice.json): load only the host's text model, its
    // layers over the host's own dims and vocabulary, never the padded width (the GPU's layers add exact
    // zeros on text tokens). Chip tokens are then outside its vocabulary. Ignored for other checkpoints.
    bool textOnly = false;
    std::function<void(int done, int total)> progress;  // after each tensor
};

// How a prefill runs the Gated DeltaNet's delta rule: in chunks of 64 tokens as the reference
// implementation does (the default), or token by token as a decode does.
enum class DeltaRule { Chunked, Sequential };

class Qwen35Model {
public:
    ~Qwen35Model();
    // DIR/config.json plus its safetensors (any of bf16/fp16/fp32), held as `options` says. Throws
    // DiagnosticError naming the tensor for a missing, mis-shaped or non-finite weight.
    static std::unique_ptr<Qwen35Model> load(const std::string& dir, const ModelLoadOptions& options = {});
    // Weights from a source that gives each tensor (checkpoint name without prefix, e.g.
    // "layers.0.mlp.up_proj.weight") as fp32 values of the given shape, or throws.
    using TensorSource = qgpu::TensorSource;
    static std::unique_ptr<Qwen35Model> fromTensors(const Qwen35Config& config, const TensorSource& tensor);
    // Random weights of this geometry (std 0.02, norms 0), for tests and benchmarks.
    static std::unique_ptr<Qwen35Model> random(const Qwen35Config& config, uint64_t seed);
    // Writes config.json and model.safetensors in `dtype` (the directory must exist).
    void save(const std::string& dir, DType dtype = DType::F32) const;

    const Qwen35Config& config() const { return m_config; }
    WeightFormat weightFormat() const;
    ComputeDevice device() const;  // Cpu or Cuda
    void setPrefillDeltaRule(DeltaRule rule) { m_prefillRule = rule; }
    DeltaRule prefillDeltaRule() const { return m_prefillRule; }
    ModelState newState() const;

    // Feeds `tokens` after what `state` has seen. One token: a decode step; several: a prefill with
    // batched projections. Returns logits [tokens.size() x vocab] (or only the last row).
    std::vector<float> forward(const std::vector<int>& tokens, ModelState& state, bool allPositions = false) const;
    // The residual stream after the last decoder layer (before the final norm), [tokens.size() x hidden].
    std::vector<float> hiddenStates(const std::vector<int>& tokens, ModelState& state) const;

    struct Weights;

private:
    Qwen35Model(Qwen35Config config, std::unique_ptr<Weights> weights);
    Qwen35Config m_config;
    std::unique_ptr<Weights> m_weights;
    DeltaRule m_prefillRule = DeltaRule::Chunked;
};

}  // namespace qgpu
