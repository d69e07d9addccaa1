#include "qgpu/runtime/CircuitCheckpoint.h"

#include <nlohmann/json.hpp>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/JsonDocument.h"

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
    cfg.computeDtype = "float32";  // exact only in fp32 activations, whatever the weights' dtype
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
    addPassthroughAttention(dir, dtype);
    writeTensorChecksums(dir);
}

void writeTensorChecksums(const std::string& dir) {
    Checkpoint checkpoint(dir);
    nlohmann::json sums = nlohmann::json::object();
    for (const std::string& name : checkpoint.names()) sums[name] = tensorChecksum(*checkpoint.find(name));
    nlohmann::json file = {{"format", "qgpu-tensor-checksums"}, {"version", 1}, {"tensors", sums}};
    writeTextAtomically(std::filesystem::path(dir) / kTensorChecksumsFile, file.dump(1));
}

TensorChecksums TensorChecksums::load(const std::string& dir) {
    TensorChecksums out;
    out.m_file = checkpointFile(dir, kTensorChecksumsFile,
                                "the checkpoint lacks its tensors' checksums (it was written by an older qgpu "
                                "or copied in part); write it again with qgpu build-gpu or build --host");
    nlohmann::json j = parseJsonDocument(readFile(out.m_file), out.m_file);
    if (!j.is_object() || !j.contains("format") || j["format"] != "qgpu-tensor-checksums" || !j.contains("tensors") ||
        !j["tensors"].is_object())
        failAt(out.m_file, "is not a qgpu tensor checksums file; write the checkpoint again");
    for (auto it = j["tensors"].begin(); it != j["tensors"].end(); ++it)
        out.m_sums[it.key()] = jsonGet<std::string>(it.value(), it.key(), out.m_file);
    return out;
}

void TensorChecksums::verify(const std::string& name, const TensorView& tensor, const ChunkRead& read) const {
    auto it = m_sums.find(name);
    if (it == m_sums.end()) failAt(m_file, "has no checksum for tensor '" + name + "'; write the checkpoint again");
    if (it->second != tensorChecksum(tensor, read))
        failAt(m_file, "tensor '" + name + "' (" + dtypeName(tensor.dtype) +
                           ") does not match its checksum: the checkpoint's weights were changed or damaged; "
                           "write it again with qgpu build-gpu or build --host");
}

void addPassthroughAttention(const std::string& dir, DType dtype) {
    namespace fs = std::filesystem;
    Qwen35Config config = Qwen35Config::load(dir);
    config.numHeads = config.numKvHeads = 1;  // only full-attention layers have these heads
    config.headDim = 16;
    int64_t h = config.hiddenSize, in = config.intermediateSize, hd = config.headDim;
    std::string p = "model.layers." + std::to_string(config.numLayers) + ".";
    std::vector<TensorData> zeros;
    auto add = [&](const std::string& name, std::vector<int64_t> shape) {
        size_t n = 1;
        for (int64_t d : shape) n *= size_t(d);
        zeros.push_back(TensorData::fromFloat(p + name, std::move(shape), std::vector<float>(n, 0.0f), dtype));
    };
    add("input_layernorm.weight", {h});
    add("post_attention_layernorm.weight", {h});
    add("self_attn.q_proj.weight", {2 * hd, h});  // the query, then its output gate
    add("self_attn.k_proj.weight", {hd, h});
    add("self_attn.v_proj.weight", {hd, h});
    add("self_attn.o_proj.weight", {h, hd});
    add("self_attn.q_norm.weight", {hd});
    add("self_attn.k_norm.weight", {hd});
    add("mlp.gate_proj.weight", {in, h});
    add("mlp.up_proj.weight", {in, h});
    add("mlp.down_proj.weight", {h, in});
    config.numLayers += 1;
    config.layerTypes.push_back(LayerType::FullAttention);

    fs::path first = fs::path(dir) / "model-00001-of-00002.safetensors";
    fs::path second = fs::path(dir) / "model-00002-of-00002.safetensors";
    writeSafetensors(second.string(), zeros, {{"format", "pt"}});
    fs::rename(fs::path(dir) / "model.safetensors", first);
    nlohmann::json map = nlohmann::json::object();
    size_t bytes = 0;
    SafetensorsFile written(first.string());
    for (const TensorView& v : written.tensors()) {
        map[v.name] = first.filename().string();
        bytes += v.bytes;
    }
    for (const TensorData& t : zeros) {
        map[t.name] = second.filename().string();
        bytes += t.bytes.size();
    }
    nlohmann::json index = {{"metadata", {{"total_size", bytes}}}, {"weight_map", map}};
    writeTextAtomically(fs::path(dir) / "model.safetensors.index.json", index.dump(2));
    writeTextAtomically(fs::path(dir) / "config.json", config.toJson());
}

}  // namespace qgpu
