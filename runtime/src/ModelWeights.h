// The weights of a Qwen35Model as LibTorch tensors, and how they are read from a checkpoint: memory-mapped
// in their stored dtype where the format allows, packed or quantised where it does not. Internal to the
// runtime library (Torch stays out of its public headers).
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <string>
#include <vector>

#include "qgpu/runtime/Qwen35Model.h"

namespace qgpu {

// A projection's weight [out, in] as held: fp32 or bf16 in `weight`; or 8-bit, as int8 rows with one scale
// each, prepacked for FBGEMM's int8 kernels on the CPU (`packed`) or as `weight` and `scale` on CUDA. An
// 8-bit weight on the CPU keeps its source in `weight` (the mapped file, not resident unless read) for
// embedding lookups and toFloat().
struct Linear {
    at::Tensor weight;
    at::Tensor scale;    // int8 on CUDA: [out]
    c10::IValue packed;  // 8-bit on the CPU: quantized::linear_prepack's weight

    at::Tensor operator()(const at::Tensor& x) const;  // x W^T: x [T, in] fp32 -> [T, out] fp32
    at::Tensor rows(const at::Tensor& ids) const;      // the rows `ids` as fp32 (an embedding lookup)
    at::Tensor toFloat() const;                        // the whole weight as fp32
    bool defined() const { return weight.defined(); }
};

// Quantises [out, in] to 8 bits per row: scale = absmax / 127, q = round(w / scale). On the CPU the rows are
// prepacked for FBGEMM, which multiplies them with the activations quantised on the fly (as llama.cpp's
// Q8_0 does per block); on CUDA they are int8 with a bf16 scale, widened to bf16 for each product.
Linear quantizeRows(const at::Tensor& w, at::Device device);

struct LayerWeights {
    LayerType type = LayerType::LinearAttention;
    at::Tensor inputNorm, postNorm;
    Linear gate, up, down;
    Linear inProjQkv, inProjZ, inProjB, inProjA, outProj;  // Gated DeltaNet
    at::Tensor conv, dtBias, aLog, linearNorm;
    Linear qProj, kProj, vProj, oProj;  // full attention
    at::Tensor qNorm, kNorm;
};

// A combined checkpoint's host runs over the host's own dims: its residual is a window of the combined
// one, whose other dims are exactly zero on text tokens except the text flag, a constant nothing writes.
// The residual norms still average over the combined width, and every LM head row sees the flag.
struct ResidualWindow {
    int fullWidth = 0;          // 0: the model's residual is its whole residual
    float flag = 0;             // the flag dim's value on every text token (kappa)
    float finalFlagWeight = 0;  // the final norm's weight w at the flag dim
    float headFlag = 0;         // every text token's LM head weight at the flag dim
};

struct Qwen35Model::Weights {
    Linear embed, lmHead;  // lmHead undefined when tied
    at::Tensor finalNorm;
    std::vector<LayerWeights> layers;
    ResidualWindow window;
    WeightFormat format = WeightFormat::F32;
    at::Device device = at::kCPU;
    std::shared_ptr<const Checkpoint> mapped;  // the files bf16 weights are mapped from
};

// Every tensor of a model of this config, bound to where it lives in `w` (exactly one of plain, linear):
// the embedding first, then an untied LM head, the final norm and the layers'.
struct NamedTensor {
    std::string name;  // the checkpoint's, without prefix: "layers.0.mlp.up_proj.weight"
    std::vector<int64_t> shape;
    at::Tensor* plain = nullptr;
    Linear* linear = nullptr;
};
std::vector<NamedTensor> bindTensors(const Qwen35Config& c, Qwen35Model::Weights& w);

// Reads the weights of `dir` (ModelLoadOptions says how); returns the model's own config too (a combined
// checkpoint's host has the host's width, layers and vocabulary).
std::unique_ptr<Qwen35Model::Weights> loadWeights(const std::string& dir, const ModelLoadOptions& options,
                                                  Qwen35Config& config);

}  // namespace qgpu
