#include "CheckpointWriter.h"

#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "qgpu/runtime/Qwen35Model.h"

namespace qgpu::conformance {
namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

struct Random {
    std::mt19937_64 rng;
    std::vector<float> normal(size_t n, float sd) {
        std::normal_distribution<float> d(0, sd);
        std::vector<float> v(n);
        for (float& x : v) x = d(rng);
        return v;
    }
    std::vector<float> uniform(size_t n, float lo, float hi) {
        std::uniform_real_distribution<float> d(lo, hi);
        std::vector<float> v(n);
        for (float& x : v) x = d(rng);
        return v;
    }
};

size_t count(const std::vector<int64_t>& shape) {
    size_t n = 1;
    for (int64_t d : shape) n *= size_t(d);
    return n;
}

// Norms and gate parameters spread around their typical values instead of Qwen35Model::random's
// constants; other tensors keep their values.
void perturb(const std::string& name, Random& r, std::vector<float>& values) {
    auto ends = [&](const char* s) { return name.ends_with(s); };
    size_t n = values.size();
    if (ends("linear_attn.norm.weight"))
        values = r.uniform(n, 0.5f, 1.5f);  // a plain scale
    else if (ends("norm.weight"))
        values = r.uniform(n, -0.5f, 0.5f);  // zero-centred: applied as 1 + w
    else if (ends("A_log"))
        values = r.uniform(n, -2.0f, 2.5f);
    else if (ends("dt_bias"))
        values = r.uniform(n, -1.0f, 1.0f);
}

// A tensor of the vision tower or the MTP head: normal weights and biases, LayerNorm weights near 1.
TensorData extraTensor(const std::string& name, std::vector<int64_t> shape, Random& r, DType dtype) {
    size_t n = count(shape);
    bool layerNormWeight = name.find("norm") != std::string::npos && name.ends_with(".weight");
    std::vector<float> v = layerNormWeight ? r.uniform(n, 0.5f, 1.5f) : r.normal(n, 0.02f);
    return TensorData::fromFloat(name, std::move(shape), v, dtype);
}

struct VisionGeometry {
    int depth = 1, hidden = 32, intermediate = 64, heads = 2, positions = 64;
};

VisionGeometry visionGeometry(const Qwen35Config& text) {
    if (text.hiddenSize < 1024) return {};
    return {1, 1024, 4096, 16, 2304};  // Qwen3.5-2B's vision widths, one block of its 24
}

std::vector<TensorData> visionTensors(const Qwen35Config& text, const VisionGeometry& v, Random& r, DType dtype) {
    std::vector<TensorData> out;
    int64_t h = v.hidden, merged = 4 * h;
    auto add = [&](const std::string& name, std::vector<int64_t> shape) {
        out.push_back(extraTensor("model.visual." + name, std::move(shape), r, dtype));
    };
    add("patch_embed.proj.weight", {h, 3, 2, 16, 16});
    add("patch_embed.proj.bias", {h});
    add("pos_embed.weight", {v.positions, h});
    for (int b = 0; b < v.depth; ++b) {
        std::string p = "blocks." + std::to_string(b) + ".";
        for (const char* norm : {"norm1", "norm2"}) {
            add(p + norm + ".weight", {h});
            add(p + norm + ".bias", {h});
        }
        add(p + "attn.qkv.weight", {3 * h, h});
        add(p + "attn.qkv.bias", {3 * h});
        add(p + "attn.proj.weight", {h, h});
        add(p + "attn.proj.bias", {h});
        add(p + "mlp.linear_fc1.weight", {v.intermediate, h});
        add(p + "mlp.linear_fc1.bias", {v.intermediate});
        add(p + "mlp.linear_fc2.weight", {h, v.intermediate});
        add(p + "mlp.linear_fc2.bias", {h});
    }
    add("merger.norm.weight", {h});
    add("merger.norm.bias", {h});
    add("merger.linear_fc1.weight", {merged, merged});
    add("merger.linear_fc1.bias", {merged});
    add("merger.linear_fc2.weight", {text.hiddenSize, merged});
    add("merger.linear_fc2.bias", {text.hiddenSize});
    return out;
}

// The multi-token-prediction head of a Qwen3.5 checkpoint: one full-attention decoder layer behind a
// projection of [embedding, hidden].
std::vector<TensorData> mtpTensors(const Qwen35Config& c, Random& r, DType dtype) {
    std::vector<TensorData> out;
    int64_t h = c.hiddenSize, hd = c.headDim, in = c.intermediateSize;
    auto add = [&](const std::string& name, std::vector<int64_t> shape) {
        out.push_back(extraTensor("mtp." + name, std::move(shape), r, dtype));
    };
    add("fc.weight", {h, 2 * h});
    add("pre_fc_norm_embedding.weight", {h});
    add("pre_fc_norm_hidden.weight", {h});
    add("norm.weight", {h});
    add("layers.0.input_layernorm.weight", {h});
    add("layers.0.post_attention_layernorm.weight", {h});
    add("layers.0.self_attn.q_proj.weight", {2 * c.numHeads * hd, h});
    add("layers.0.self_attn.k_proj.weight", {c.numKvHeads * hd, h});
    add("layers.0.self_attn.v_proj.weight", {c.numKvHeads * hd, h});
    add("layers.0.self_attn.o_proj.weight", {h, c.numHeads * hd});
    add("layers.0.self_attn.q_norm.weight", {hd});
    add("layers.0.self_attn.k_norm.weight", {hd});
    add("layers.0.mlp.gate_proj.weight", {in, h});
    add("layers.0.mlp.up_proj.weight", {in, h});
    add("layers.0.mlp.down_proj.weight", {h, in});
    return out;
}

// The published multimodal config: architectures, the text config nested with its rope parameters as
// transformers 5 spells them, a vision config and the vision token ids.
std::string multimodalConfig(const Qwen35Config& c, const VisionGeometry& v) {
    Json text = Json::parse(c.toJson());
    text.erase("architectures");
    Json vision = {{"model_type", "qwen3_5"},
                   {"depth", v.depth},
                   {"hidden_size", v.hidden},
                   {"intermediate_size", v.intermediate},
                   {"num_heads", v.heads},
                   {"in_channels", 3},
                   {"patch_size", 16},
                   {"spatial_merge_size", 2},
                   {"temporal_patch_size", 2},
                   {"out_hidden_size", c.hiddenSize},
                   {"num_position_embeddings", v.positions},
                   {"hidden_act", "gelu_pytorch_tanh"}};
    Json j = {{"architectures", {"Qwen3_5ForConditionalGeneration"}},
              {"model_type", "qwen3_5"},
              {"image_token_id", 248056},
              {"video_token_id", 248057},
              {"vision_start_token_id", 248053},
              {"vision_end_token_id", 248054},
              {"tie_word_embeddings", c.tieWordEmbeddings},
              {"text_config", text},
              {"vision_config", vision}};
    return j.dump(2);
}

void writeIndex(const fs::path& dir,
                const std::vector<std::pair<std::string, const std::vector<TensorData>*>>& shards) {
    Json map = Json::object();
    size_t bytes = 0;
    for (const auto& [file, tensors] : shards)
        for (const TensorData& t : *tensors) {
            map[t.name] = file;
            bytes += t.bytes.size();
        }
    Json index = {{"metadata", {{"total_size", bytes}}}, {"weight_map", map}};
    std::ofstream(dir / "model.safetensors.index.json") << index.dump(2);
}

}  // namespace

void writeRandomCheckpoint(const fs::path& dir, const Qwen35Config& config, uint64_t seed, DType dtype,
                           bool multimodal) {
    Qwen35Model::random(config, seed)->save(dir.string(), DType::F32);
    Random r{std::mt19937_64(seed * 7919 + 1)};
    std::vector<TensorData> text;
    {
        SafetensorsFile f((dir / "model.safetensors").string());
        for (const TensorView& v : f.tensors()) {
            std::vector<float> values = v.toFloat();
            perturb(v.name, r, values);
            std::string name = multimodal ? "model.language_model." + v.name.substr(6) : v.name;  // "model." dropped
            text.push_back(TensorData::fromFloat(name, v.shape, values, dtype));
        }
    }
    if (!multimodal) {
        writeSafetensors((dir / "model.safetensors").string(), text, {{"format", "pt"}});
        return;
    }
    fs::remove(dir / "model.safetensors");
    VisionGeometry vision = visionGeometry(config);
    std::vector<TensorData> extra = visionTensors(config, vision, r, dtype), mtp = mtpTensors(config, r, dtype);
    extra.insert(extra.end(), mtp.begin(), mtp.end());
    const char* first = "model-00001-of-00002.safetensors";
    const char* second = "model-00002-of-00002.safetensors";
    writeSafetensors((dir / first).string(), text, {{"format", "pt"}});
    writeSafetensors((dir / second).string(), extra, {{"format", "pt"}});
    writeIndex(dir, {{first, &text}, {second, &extra}});
    std::ofstream(dir / "config.json") << multimodalConfig(config, vision);
}

}  // namespace qgpu::conformance
