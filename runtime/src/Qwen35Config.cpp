#include "qgpu/runtime/Qwen35Config.h"

#include <cmath>
#include <filesystem>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/JsonDocument.h"
#include "qgpu/runtime/Safetensors.h"

namespace qgpu {
namespace {

using Json = nlohmann::json;

std::vector<LayerType> byInterval(int layers, int interval) {
    std::vector<LayerType> out;
    for (int i = 0; i < layers; ++i)
        out.push_back((i + 1) % interval == 0 ? LayerType::FullAttention : LayerType::LinearAttention);
    return out;
}

// The object config.json's text-model fields are read from (the root, or its text_config), and how errors
// name a field of it.
struct ConfigSource {
    const Json& j;
    bool nested;
    const std::string& file;

    std::string path(const char* key) const { return nested ? jsonPath("text_config", key) : std::string(key); }
};

// Reads the integer `key` into out: it must be from 1 to max, and present when required.
// Integers with the largest values a Qwen3.5-shaped model could plausibly have, so that no product of
// them overflows or asks for terabytes before the weights are read.
void intField(const ConfigSource& s, const char* key, int& out, int64_t max, bool required = true) {
    if (!s.j.contains(key)) {
        if (required) failAt(s.file, std::string("missing \"") + key + "\"");
        return;
    }
    int64_t v = jsonGet<int64_t>(s.j[key], s.path(key), s.file);
    if (v <= 0 || v > max)
        failAt(s.file,
               "\"" + s.path(key) + "\" is " + std::to_string(v) + "; it must be between 1 and " + std::to_string(max));
    out = int(v);
}

// The model's dimensions, head counts and vocabulary size.
void readSizes(const ConfigSource& s, Qwen35Config& c) {
    intField(s, "hidden_size", c.hiddenSize, 1 << 16);
    intField(s, "num_hidden_layers", c.numLayers, 1024);
    intField(s, "intermediate_size", c.intermediateSize, 1 << 18);
    intField(s, "num_attention_heads", c.numHeads, 1024);
    intField(s, "num_key_value_heads", c.numKvHeads, 1024);
    intField(s, "head_dim", c.headDim, 4096, false);
    intField(s, "linear_num_key_heads", c.linearNumKeyHeads, 1024);
    intField(s, "linear_num_value_heads", c.linearNumValueHeads, 1024);
    intField(s, "linear_key_head_dim", c.linearKeyHeadDim, 4096);
    intField(s, "linear_value_head_dim", c.linearValueHeadDim, 4096);
    intField(s, "linear_conv_kernel_dim", c.convKernel, 64, false);
    intField(s, "vocab_size", c.vocabSize, 1 << 24);
}

// rope_theta and partial_rotary_factor: top-level fields, or else in rope_parameters.
void readRope(const ConfigSource& s, Qwen35Config& c) {
    const Json& j = s.j;
    const Json* rope =
        j.contains("rope_parameters") && j["rope_parameters"].is_object() ? &j["rope_parameters"] : nullptr;
    auto ropeField = [&](const char* key, double& out) {
        if (j.contains(key))
            out = jsonGet<double>(j[key], s.path(key), s.file);
        else if (rope && rope->contains(key))
            out = jsonGet<double>((*rope)[key], jsonPath(s.path("rope_parameters"), key), s.file);
    };
    ropeField("rope_theta", c.ropeTheta);
    ropeField("partial_rotary_factor", c.partialRotaryFactor);
}

// layer_types, or else every full_attention_interval-th layer full attention (4 when absent).
void readLayerTypes(const ConfigSource& s, Qwen35Config& c) {
    const Json& j = s.j;
    if (j.contains("layer_types")) {
        if (!j["layer_types"].is_array()) failAt(s.file, "\"" + s.path("layer_types") + "\" must be an array");
        for (const auto& t : j["layer_types"]) {
            if (t == "linear_attention")
                c.layerTypes.push_back(LayerType::LinearAttention);
            else if (t == "full_attention")
                c.layerTypes.push_back(LayerType::FullAttention);
            else
                failAt(s.file, "unknown layer type " + t.dump() + " in \"layer_types\"");
        }
    } else {
        int interval = 4;
        intField(s, "full_attention_interval", interval, 1024, false);
        c.layerTypes = byInterval(c.numLayers, interval);
    }
}

}  // namespace

Qwen35Config Qwen35Config::parse(const std::string& text, const std::string& file) {
    Json root = parseJsonDocument(text, file);
    if (!root.is_object()) failAt(file, "config.json must be a JSON object");
    bool nested = root.contains("text_config");
    const Json& j = nested ? root["text_config"] : root;
    if (!j.is_object()) failAt(file, "\"text_config\" must be a JSON object");
    const ConfigSource s{j, nested, file};
    Qwen35Config c;
    readSizes(s, c);
    if (j.contains("tie_word_embeddings"))
        c.tieWordEmbeddings = jsonGet<bool>(j["tie_word_embeddings"], s.path("tie_word_embeddings"), file);
    else if (root.contains("tie_word_embeddings"))
        c.tieWordEmbeddings = jsonGet<bool>(root["tie_word_embeddings"], "tie_word_embeddings", file);
    if (j.contains("rms_norm_eps")) {
        c.rmsNormEps = jsonGet<float>(j["rms_norm_eps"], s.path("rms_norm_eps"), file);
        if (!(c.rmsNormEps > 0 && c.rmsNormEps <= 1))
            failAt(file, "\"" + s.path("rms_norm_eps") + "\" must be between 0 and 1 (Qwen3.5 uses 1e-6)");
    }
    // The dtype transformers computes in: "dtype" in transformers 5, "torch_dtype" before.
    for (const Json* level : std::initializer_list<const Json*>{&j, &root})
        for (const char* key : {"dtype", "torch_dtype"})
            if (c.computeDtype.empty() && level->contains(key) && (*level)[key].is_string())
                c.computeDtype = (*level)[key].get<std::string>();
    readRope(s, c);
    if (j.contains("hidden_act") && j["hidden_act"] != "silu")
        failAt(file, "\"hidden_act\" is " + j["hidden_act"].dump() + "; Qwen3.5 uses silu");
    if (j.contains("attn_output_gate") && !jsonGet<bool>(j["attn_output_gate"], s.path("attn_output_gate"), file))
        failAt(file, "\"attn_output_gate\": false is not a Qwen3.5 layout");
    readLayerTypes(s, c);
    if (int(c.layerTypes.size()) != c.numLayers)
        failAt(file, "\"layer_types\" lists " + std::to_string(c.layerTypes.size()) +
                         " layers but \"num_hidden_layers\" is " + std::to_string(c.numLayers));
    if (c.linearNumValueHeads % c.linearNumKeyHeads || c.numHeads % c.numKvHeads)
        failAt(file, "value heads must be a multiple of key heads (and attention heads of key-value heads)");
    if (!(c.ropeTheta > 0)) failAt(file, "\"rope_theta\" must be positive");
    if (!(c.partialRotaryFactor >= 0 && c.partialRotaryFactor <= 1) || c.rotaryDim() % 2)
        failAt(file, "\"partial_rotary_factor\" gives an odd or too large rotary dimension");
    return c;
}

Qwen35Config Qwen35Config::load(const std::string& dir) {
    std::string path =
        checkpointFile(dir, "config.json", "point at a Qwen3.5 checkpoint directory (config.json, safetensors)");
    return parse(readFile(path), path);
}

Qwen35Config Qwen35Config::geometry2b() {
    Qwen35Config c;
    c.layerTypes = byInterval(c.numLayers, 4);
    return c;
}

std::string Qwen35Config::toJson() const {
    Json j;
    j["architectures"] = {"Qwen3_5ForCausalLM"};
    j["model_type"] = "qwen3_5_text";
    j["hidden_size"] = hiddenSize;
    j["num_hidden_layers"] = numLayers;
    j["intermediate_size"] = intermediateSize;
    j["num_attention_heads"] = numHeads;
    j["num_key_value_heads"] = numKvHeads;
    j["head_dim"] = headDim;
    j["linear_num_key_heads"] = linearNumKeyHeads;
    j["linear_num_value_heads"] = linearNumValueHeads;
    j["linear_key_head_dim"] = linearKeyHeadDim;
    j["linear_value_head_dim"] = linearValueHeadDim;
    j["linear_conv_kernel_dim"] = convKernel;
    j["vocab_size"] = vocabSize;
    j["tie_word_embeddings"] = tieWordEmbeddings;
    j["rms_norm_eps"] = rmsNormEps;
    // As transformers 5 and the published Qwen3.5 configs spell them; M-RoPE reduces to RoPE on text.
    j["rope_parameters"] = {{"rope_type", "default"},
                            {"rope_theta", ropeTheta},
                            {"partial_rotary_factor", partialRotaryFactor},
                            {"mrope_section", {11, 11, 10}},
                            {"mrope_interleaved", true}};
    j["hidden_act"] = "silu";
    j["attn_output_gate"] = true;
    if (!computeDtype.empty()) j["dtype"] = computeDtype;
    j["layer_types"] = Json::array();
    for (LayerType t : layerTypes)
        j["layer_types"].push_back(t == LayerType::FullAttention ? "full_attention" : "linear_attention");
    return j.dump(2);
}

}  // namespace qgpu
