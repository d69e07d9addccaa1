// Qwen3.5 text-model configuration: config.json (plain or with a nested text_config), validated.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace qgpu {

enum class LayerType { LinearAttention, FullAttention };

struct Qwen35Config {
    int hiddenSize = 2048;
    int numLayers = 24;
    int intermediateSize = 6144;
    int numHeads = 8;
    int numKvHeads = 2;
    int headDim = 256;
    int linearNumKeyHeads = 16;
    int linearNumValueHeads = 16;
    int linearKeyHeadDim = 128;
    int linearValueHeadDim = 128;
    int convKernel = 4;
    int vocabSize = 248320;
    bool tieWordEmbeddings = true;
    float rmsNormEps = 1e-6f;
    double ropeTheta = 1e7;
    double partialRotaryFactor = 0.25;
    std::vector<LayerType> layerTypes;  // numLayers entries
    // config.json's "dtype": what transformers computes in when a program loads the checkpoint without
    // choosing ("" leaves it out: transformers then takes the weights' dtype). Our runtime computes in fp32.
    std::string computeDtype;

    int rotaryDim() const { return int(headDim * partialRotaryFactor); }
    int linearKeyDim() const { return linearNumKeyHeads * linearKeyHeadDim; }
    int linearValueDim() const { return linearNumValueHeads * linearValueHeadDim; }

    // Parses config.json text; throws DiagnosticError naming the field for what this runtime cannot run.
    static Qwen35Config parse(const std::string& json, const std::string& fileName = "config.json");
    static Qwen35Config load(const std::string& dir);  // DIR/config.json
    // Qwen3.5-2B's text geometry, layer types from full_attention_interval 4.
    static Qwen35Config geometry2b();
    // Writes a text-only config with explicit layer_types.
    std::string toJson() const;
};

// A model's weights by tensor (checkpoint name without prefix, e.g. "layers.0.mlp.up_proj.weight") as fp32
// values of the given shape, or throws.
using TensorSource = std::function<std::vector<float>(const std::string& name, const std::vector<int64_t>& shape)>;

}  // namespace qgpu
