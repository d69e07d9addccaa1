// Writes a compiled circuit as a stock Qwen3.5 checkpoint (config.json with explicit layer_types plus
// model.safetensors) that Qwen35Model -- or any Qwen3.5 implementation -- loads and runs.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "qgpu/compiler/circuit/Circuit.h"
#include "qgpu/runtime/Qwen35Config.h"
#include "qgpu/runtime/Safetensors.h"

namespace qgpu {

// The Qwen3.5 config of the circuit's geometry: every layer Gated DeltaNet, tied embeddings.
Qwen35Config circuitConfig(const circuit::Circuit& c, int vocabSize);

// The circuit geometry of a Qwen3.5 config (its hidden size, MLP and linear-attention heads).
circuit::Geometry circuitGeometry(const Qwen35Config& c);
// The layout file written beside the weights (Circuit::layoutJson): what every residual dim and state
// row means, for decoders and the debugger.
inline constexpr const char* kCircuitLayoutFile = "circuit-layout.json";

// Every tensor's checksum (tensorChecksum), written beside the weights of a checkpoint that holds the
// GPU's layers: GpuModel::load refuses a damaged or relabelled tensor in seconds, before it decodes.
inline constexpr const char* kTensorChecksumsFile = "tensor-checksums.json";
// Reads back every tensor of the checkpoint in `dir` and writes its checksums file.
void writeTensorChecksums(const std::string& dir);

// A checkpoint's checksums file, by the tensors' normalised names (Checkpoint's).
class TensorChecksums {
public:
    // Throws DiagnosticError when the file is missing or malformed.
    static TensorChecksums load(const std::string& dir);
    // Throws DiagnosticError naming the tensor when it has no checksum or its bytes do not match it.
    // `read` as tensorChecksum's.
    void verify(const std::string& name, const TensorView& tensor, const ChunkRead& read = {}) const;

private:
    std::string m_file;
    std::map<std::string, std::string> m_sums;
};

// Appends a full-attention layer whose every weight is zero to the checkpoint in `dir` (one file written
// by Qwen35Model::save or writeCircuitCheckpoint): it adds exactly zero to the residual, and it lets
// transformers run the model with its cache, which asks a full-attention layer for the sequence length
// and fails on a model of Gated DeltaNet layers alone. The weights become two shards with
// model.safetensors.index.json; the layer's heads are one query and one key-value head of 16 dims.
void addPassthroughAttention(const std::string& dir, DType dtype);

// `embeddingRows` are the token embeddings (the circuit's token alphabet). The directory must exist.
// The checkpoint ends with the passthrough attention layer.
void writeCircuitCheckpoint(const std::string& dir, const circuit::Circuit& c,
                            const std::vector<std::vector<float>>& embeddingRows, DType dtype = DType::F32);

}  // namespace qgpu
