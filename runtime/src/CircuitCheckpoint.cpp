#include "qgpu/runtime/CircuitCheckpoint.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace qgpu {

namespace {

void writeTextAtomically(const std::filesystem::path& path, const std::string& text) {
    std::filesystem::path tmp = path;
    tmp += ".partial";
    {
        std::ofstream out(tmp, std::ios::binary);
        out << text;
        if (!out.flush()) throw std::runtime_error("cannot write " + tmp.string());
    }
    std::filesystem::rename(tmp, path);
}

}  // namespace

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

circuit::Geometry circuitGeometry(const Qwen35Config& c) {
    circuit::Geometry g;
    g.hiddenSize = c.hiddenSize;
    g.intermediateSize = c.intermediateSize;
    g.linearNumKeyHeads = c.linearNumKeyHeads;
    g.linearNumValueHeads = c.linearNumValueHeads;
    g.linearKeyHeadDim = c.linearKeyHeadDim;
    g.linearValueHeadDim = c.linearValueHeadDim;
    g.convKernel = c.convKernel;
    return g;
}

void writeCircuitCheckpoint(const std::string& dir, const circuit::Circuit& c,
                            const std::vector<std::vector<float>>& embeddingRows, DType dtype) {
    std::vector<TensorData> tensors;
    for (auto& t : c.emit(embeddingRows))
        tensors.push_back(TensorData::fromFloat("model." + t.name, t.shape, t.values, dtype));
    writeSafetensors((std::filesystem::path(dir) / "model.safetensors").string(), tensors, {{"format", "pt"}});
    writeTextAtomically(std::filesystem::path(dir) / kCircuitLayoutFile, c.layoutJson());
    writeTextAtomically(std::filesystem::path(dir) / "config.json",
                        circuitConfig(c, int(embeddingRows.size())).toJson());
}

}  // namespace qgpu
