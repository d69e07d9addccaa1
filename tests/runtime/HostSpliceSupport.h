// Tiny Qwen3.5 hosts for the splice tests, written as real checkpoints: random weights with a sharpened
// embedding (so the host's next-token distribution is far from uniform), random residual norm weights
// (so the norm compensation matters), and a byte-level tokenizer.json with chat's special tokens.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../text/TextTestUtil.h"
#include "CircuitTestSupport.h"
#include "qgpu/runtime/Qwen35Model.h"
#include "qgpu/runtime/Safetensors.h"

namespace qgpu::testing {

inline std::string readText(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

// Linear-attention heads of 128 (what a chip's memories need), `linearHeads` of them; layers
// linear, linear, full, linear.
inline Qwen35Config spliceHostConfig(int hidden, int intermediate, int linearHeads) {
    Qwen35Config c;
    c.hiddenSize = hidden;
    c.intermediateSize = intermediate;
    c.numHeads = 2;
    c.numKvHeads = 1;
    c.headDim = 16;
    c.linearNumKeyHeads = c.linearNumValueHeads = linearHeads;
    c.linearKeyHeadDim = c.linearValueHeadDim = 128;
    c.vocabSize = 300;
    c.numLayers = 4;
    c.layerTypes = {LayerType::LinearAttention, LayerType::LinearAttention, LayerType::FullAttention,
                    LayerType::LinearAttention};
    return c;
}

inline void writeHost(const std::filesystem::path& dir, const Qwen35Config& config, uint64_t seed,
                      DType dtype = DType::F32) {
    std::filesystem::create_directories(dir);
    Qwen35Model::random(config, seed)->save(dir.string(), dtype);
    std::string path = (dir / "model.safetensors").string();
    std::vector<TensorData> tensors;
    {
        SafetensorsFile f(path);
        std::mt19937 rng{uint32_t(seed)};
        std::uniform_real_distribution<float> norm(-0.5f, 0.5f);
        for (const TensorView& v : f.tensors()) {
            std::vector<float> values = v.toFloat();
            std::string name = normaliseTensorName(v.name);
            if (name == "embed_tokens.weight")
                for (float& x : values) x *= 8;
            if (name.ends_with("layernorm.weight") || name == "norm.weight")
                for (float& x : values) x = norm(rng);
            tensors.push_back(TensorData::fromFloat(v.name, v.shape, values, v.dtype));
        }
    }
    writeSafetensors(path, tensors, {{"format", "pt"}});
    text::testing::TokenizerSpec spec;  // bytes, and chat's special tokens last, so `qgpu chat` takes it
    int last = config.vocabSize - 1;
    spec.added = {{last - 2, "<|endoftext|>", true}, {last - 1, "<|im_start|>", true}, {last, "<|im_end|>", true}};
    std::ofstream(dir / "tokenizer.json") << text::testing::tokenizerJson(spec).dump();
}

}  // namespace qgpu::testing
