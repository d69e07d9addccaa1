// A Qwen3.5 text model in LibTorch (fp32 on the CPU): Gated DeltaNet and gated full-attention layers,
// SwiGLU MLPs, zero-centred RMSNorms, tied or untied LM head. Torch stays behind this header.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "qgpu/runtime/Qwen35Config.h"
#include "qgpu/runtime/Safetensors.h"

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

// How a prefill runs the Gated DeltaNet's delta rule: in chunks of 64 tokens as the reference
// implementation does (the default), or token by token as a decode does.
enum class DeltaRule { Chunked, Sequential };

class Qwen35Model {
public:
    ~Qwen35Model();
    // DIR/config.json plus its safetensors (bf16/fp16/fp32 loaded into fp32). Throws DiagnosticError.
    static std::unique_ptr<Qwen35Model> load(const std::string& dir);
    // Weights from a source that gives each tensor (checkpoint name without prefix, e.g.
    // "layers.0.mlp.up_proj.weight") as fp32 values of the given shape, or throws.
    using TensorSource = std::function<std::vector<float>(const std::string& name, const std::vector<int64_t>& shape)>;
    static std::unique_ptr<Qwen35Model> fromTensors(const Qwen35Config& config, const TensorSource& tensor);
    // Random weights of this geometry (std 0.02, norms 0), for tests and benchmarks.
    static std::unique_ptr<Qwen35Model> random(const Qwen35Config& config, uint64_t seed);
    // Writes config.json and model.safetensors in `dtype` (the directory must exist).
    void save(const std::string& dir, DType dtype = DType::F32) const;

    const Qwen35Config& config() const { return m_config; }
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
