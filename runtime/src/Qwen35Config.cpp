#include "qgpu/runtime/Qwen35Config.h"

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "qgpu/core/Diagnostic.h"

namespace qgpu {
namespace {

using Json = nlohmann::json;

std::vector<LayerType> byInterval(int layers, int interval) {
    std::vector<LayerType> out;
    for (int i = 0; i < layers; ++i)
        out.push_back((i + 1) % interval == 0 ? LayerType::FullAttention : LayerType::LinearAttention);
    return out;
}

}  // namespace

Qwen35Config Qwen35Config::parse(const std::string& text, const std::string& file) {
    Json root;
    try {
        root = Json::parse(text);
    } catch (const Json::parse_error& e) {
        failAt(file, std::string("malformed JSON: ") + e.what());
    }
    const Json& j = root.contains("text_config") ? root["text_config"] : root;
    Qwen35Config c;
    auto intField = [&](const char* key, int& out, bool required = true) {
        if (!j.contains(key)) {
            if (required) failAt(file, std::string("missing \"") + key + "\"");
            return;
        }
        if (!j[key].is_number_integer() || j[key].get<int64_t>() <= 0 || j[key].get<int64_t>() > (1 << 24))
            failAt(file, std::string("\"") + key + "\" must be an integer between 1 and 16777216");
        out = j[key].get<int>();
    };
    try {
        intField("hidden_size", c.hiddenSize);
        intField("num_hidden_layers", c.numLayers);
        intField("intermediate_size", c.intermediateSize);
        intField("num_attention_heads", c.numHeads);
        intField("num_key_value_heads", c.numKvHeads);
        intField("head_dim", c.headDim, false);
        intField("linear_num_key_heads", c.linearNumKeyHeads);
        intField("linear_num_value_heads", c.linearNumValueHeads);
        intField("linear_key_head_dim", c.linearKeyHeadDim);
        intField("linear_value_head_dim", c.linearValueHeadDim);
        intField("linear_conv_kernel_dim", c.convKernel, false);
        intField("vocab_size", c.vocabSize);
        if (j.contains("tie_word_embeddings"))
            c.tieWordEmbeddings = j["tie_word_embeddings"].get<bool>();
        else if (root.contains("tie_word_embeddings"))
            c.tieWordEmbeddings = root["tie_word_embeddings"].get<bool>();
        if (j.contains("rms_norm_eps")) c.rmsNormEps = j["rms_norm_eps"].get<float>();
        // The dtype transformers computes in: "dtype" in transformers 5, "torch_dtype" before.
        for (const Json* level : std::initializer_list<const Json*>{&j, &root})
            for (const char* key : {"dtype", "torch_dtype"})
                if (c.computeDtype.empty() && level->contains(key) && (*level)[key].is_string())
                    c.computeDtype = (*level)[key].get<std::string>();
        const Json* rope = j.contains("rope_parameters") ? &j["rope_parameters"] : nullptr;
        if (j.contains("rope_theta"))
            c.ropeTheta = j["rope_theta"].get<double>();
        else if (rope && rope->contains("rope_theta"))
            c.ropeTheta = (*rope)["rope_theta"].get<double>();
        if (j.contains("partial_rotary_factor"))
            c.partialRotaryFactor = j["partial_rotary_factor"].get<double>();
        else if (rope && rope->contains("partial_rotary_factor"))
            c.partialRotaryFactor = (*rope)["partial_rotary_factor"].get<double>();
        if (j.contains("hidden_act") && j["hidden_act"] != "silu")
            failAt(file, "\"hidden_act\" is " + j["hidden_act"].dump() + "; Qwen3.5 uses silu");
        if (j.contains("attn_output_gate") && !j["attn_output_gate"].get<bool>())
            failAt(file, "\"attn_output_gate\": false is not a Qwen3.5 layout");
        if (j.contains("layer_types")) {
            for (const auto& t : j["layer_types"]) {
                if (t == "linear_attention")
                    c.layerTypes.push_back(LayerType::LinearAttention);
                else if (t == "full_attention")
                    c.layerTypes.push_back(LayerType::FullAttention);
                else
                    failAt(file, "unknown layer type " + t.dump() + " in \"layer_types\"");
            }
        } else {
            int interval = j.value("full_attention_interval", 4);
            if (interval <= 0) failAt(file, "\"full_attention_interval\" must be positive");
            c.layerTypes = byInterval(c.numLayers, interval);
        }
    } catch (const Json::exception& e) {
        failAt(file, std::string("a field has the wrong type: ") + e.what());
    }
    if (int(c.layerTypes.size()) != c.numLayers)
        failAt(file, "\"layer_types\" lists " + std::to_string(c.layerTypes.size()) +
                         " layers but \"num_hidden_layers\" is " + std::to_string(c.numLayers));
    if (c.linearNumValueHeads % c.linearNumKeyHeads || c.numHeads % c.numKvHeads)
        failAt(file, "value heads must be a multiple of key heads (and attention heads of key-value heads)");
    if (!(c.ropeTheta > 0)) failAt(file, "\"rope_theta\" must be positive");
    if (c.rotaryDim() % 2 || c.rotaryDim() > c.headDim || c.partialRotaryFactor < 0)
        failAt(file, "\"partial_rotary_factor\" gives an odd or too large rotary dimension");
    return c;
}

Qwen35Config Qwen35Config::load(const std::string& dir) {
    std::string path = (std::filesystem::path(dir) / "config.json").string();
    std::ifstream in(path);
    if (!in) failAt(path, "cannot read config.json; point at a Qwen3.5 checkpoint directory");
    std::stringstream ss;
    ss << in.rdbuf();
    return parse(ss.str(), path);
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
