#include "qgpu/runtime/CircuitCheckpoint.h"

#include <filesystem>
#include <fstream>

namespace qgpu {

Qwen35Config circuitConfig(const circuit::Circuit& c, int vocabSize) {
    const circuit::Geometry& g = c.geometry();
    Qwen35Config cfg;
    cfg.hiddenSize = g.hiddenSize;
    cfg.intermediateSize = g.intermediateSize;
    cfg.linearNumKeyHeads = g.linearNumKeyHeads;
    cfg.linearNumValueHeads = g.linearNumValueHeads;
    cfg.linearKeyHeadDim = g.linearKeyHeadDim;
    cfg.linearValueHeadDim = g.linearValueHeadDim;
    cfg.convKernel = g.convKernel;
    cfg.numLayers = c.layerCount();
    cfg.layerTypes.assign(size_t(c.layerCount()), LayerType::LinearAttention);
    cfg.vocabSize = vocabSize;
    cfg.tieWordEmbeddings = true;
    return cfg;
}

void writeCircuitCheckpoint(const std::string& dir, const circuit::Circuit& c,
                            const std::vector<std::vector<float>>& embeddingRows, DType dtype) {
    std::vector<TensorData> tensors;
    for (auto& t : c.emit(embeddingRows))
        tensors.push_back(TensorData::fromFloat("model." + t.name, t.shape, t.values, dtype));
    writeSafetensors((std::filesystem::path(dir) / "model.safetensors").string(), tensors, {{"format", "pt"}});
    std::ofstream(std::filesystem::path(dir) / "config.json") << circuitConfig(c, int(embeddingRows.size())).toJson();
}

}  // namespace qgpu
