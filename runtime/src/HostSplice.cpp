#include "qgpu/runtime/HostSplice.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>

#include "qgpu/compiler/gpu/Machine.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/JsonDocument.h"
#include "qgpu/runtime/CircuitCheckpoint.h"
#include "qgpu/runtime/Qwen35Config.h"
#include "qgpu/runtime/text/Tokenizer.h"

namespace qgpu {

ResidualSide residualSide(const std::string& suffix) {
    static const std::map<std::string, ResidualSide> sides = {
        {"linear_attn.in_proj_qkv.weight", ResidualSide::Columns},
        {"linear_attn.in_proj_z.weight", ResidualSide::Columns},
        {"linear_attn.in_proj_b.weight", ResidualSide::Columns},
        {"linear_attn.in_proj_a.weight", ResidualSide::Columns},
        {"self_attn.q_proj.weight", ResidualSide::Columns},
        {"self_attn.k_proj.weight", ResidualSide::Columns},
        {"self_attn.v_proj.weight", ResidualSide::Columns},
        {"mlp.gate_proj.weight", ResidualSide::Columns},
        {"mlp.up_proj.weight", ResidualSide::Columns},
        {"linear_attn.out_proj.weight", ResidualSide::Rows},
        {"self_attn.o_proj.weight", ResidualSide::Rows},
        {"mlp.down_proj.weight", ResidualSide::Rows},
        {"input_layernorm.weight", ResidualSide::ResidualNorm},
        {"post_attention_layernorm.weight", ResidualSide::ResidualNorm},
        {"linear_attn.conv1d.weight", ResidualSide::None},
        {"linear_attn.dt_bias", ResidualSide::None},
        {"linear_attn.A_log", ResidualSide::None},
        {"linear_attn.norm.weight", ResidualSide::None},
        {"self_attn.q_norm.weight", ResidualSide::None},
        {"self_attn.k_norm.weight", ResidualSide::None},
    };
    auto it = sides.find(suffix);
    if (it == sides.end()) throw std::out_of_range(suffix);
    return it->second;
}

namespace {

using Json = nlohmann::json;
namespace fs = std::filesystem;

// One tensor of the output: its header entry and how to produce its bytes.
struct Job {
    TensorSpec spec;
    std::function<void(SafetensorsWriter&)> write;
};

// (1 + w') = (1 + w) sqrt(h / H) / divisor: the same scale over H dims as the host's over h, for every
// residual (the final norm also undoes the residual's scale s before a tied LM head).
float compensated(float w, double ratio, double divisor = 1) {
    return float((1.0 + double(w)) * std::sqrt(ratio) / divisor - 1.0);
}

class Splicer {
public:
    Splicer(const std::string& hostDir, const ChipSource& chip, const SpliceOptions& options)
        : m_hostDir(hostDir), m_host(Qwen35Config::load(hostDir)), m_checkpoint(hostDir), m_options(options) {
        const TensorView& embed =
            m_checkpoint.require("embed_tokens.weight", {int64_t(m_host.vocabSize), int64_t(m_host.hiddenSize)});
        m_dtype = options.dtype.value_or(embed.dtype);
        circuit::Geometry g = circuitGeometry(m_host);  // the host's heads and MLP
        g.hiddenSize = chip.probeWidth;
        int circuitDims = buildChip(chip, g).circuit.dimsUsed();
        g.hiddenSize = splicedWidth(circuitDims, m_host.hiddenSize);
        m_chip = buildChip(chip, g);
        if (m_chip.circuit.dimsUsed() != circuitDims)
            throw std::logic_error("the circuit uses a different number of dims at another width");

        SpliceLayout& L = m_layout;
        L.width = g.hiddenSize;
        L.circuitDims = circuitDims;
        L.hostWidth = m_host.hiddenSize;
        L.flagDim = circuitDims + m_host.hiddenSize;
        L.circuitLayers = m_chip.circuit.layerCount();
        L.hostLayers = m_host.numLayers;
        L.hostVocab = m_host.vocabSize;
        L.chipTokens = int(m_chip.embeddings.size());
        // The residual norms over H dims act as the host's over h exactly, eps included: the host's residual
        // is held times s, the smallest power of two with s^2 h >= 2H, and kappa^2 = eps (s^2 h - H) stands
        // in for the eps that the wider mean would otherwise scale (docs/splice.md). With -2^10 at T in every
        // chip row and the gain G = 2^10 / kappa, a chip token's logit on text is -2^20 times the final
        // norm's scale; every text logit gains the same 2^10 kappa times it, and every chip logit on chip
        // positions the same 2^20 / kappa times the ballast's scale: both small enough to round nothing.
        double h = m_host.hiddenSize, H = g.hiddenSize;
        L.hostScale = 1;
        while (double(L.hostScale) * L.hostScale * h < 2 * H) L.hostScale *= 2;
        L.textFlag = float(std::sqrt(double(m_host.rmsNormEps) * (double(L.hostScale) * L.hostScale * h - H)));
        L.chipFlag = -1024.f;
        L.flagGain = 1024.f / L.textFlag;
    }

    const SpliceLayout& layout() const { return m_layout; }

    void writeWeights(const fs::path& file) {
        std::vector<Job> jobs = plan();
        std::vector<TensorSpec> specs;
        for (const auto& j : jobs) specs.push_back(j.spec);
        SafetensorsWriter out(file.string(), specs, {{"format", "pt"}});
        for (size_t i = 0; i < jobs.size(); ++i) {
            if (m_options.progress) m_options.progress(jobs[i].spec.name, int(i), int(jobs.size()));
            jobs[i].write(out);
        }
        out.finish();
        if (m_options.progress) m_options.progress("model.safetensors", int(jobs.size()), int(jobs.size()));
    }

    Qwen35Config config() const {
        Qwen35Config c = m_host;
        c.hiddenSize = m_layout.width;
        c.numLayers = m_layout.circuitLayers + m_layout.hostLayers;
        c.layerTypes.assign(size_t(m_layout.circuitLayers), LayerType::LinearAttention);
        c.layerTypes.insert(c.layerTypes.end(), m_host.layerTypes.begin(), m_host.layerTypes.end());
        c.vocabSize = m_layout.hostVocab + m_layout.chipTokens;
        c.computeDtype = "float32";  // the circuit's layers are exact only in fp32 activations
        // rms_norm_eps stays the host's: the per-head norms (q_norm, k_norm, the gated norm) see no width
        // and stay bit-identical, while the residual norms act as if eps were eps * H / h, far below a
        // residual's mean square (docs/splice.md has the measurement that chose this over eps * h / H).
        return c;
    }

    std::string layoutJson() const { return m_chip.circuit.layoutJson(); }

    // The host's tokenizer.json with every chip token added (special, never split) at its id.
    std::string tokenizerJson() const {
        std::string path = checkpointFile(m_hostDir, "tokenizer.json", "the host needs its tokenizer.json");
        Json j = parseJsonDocument(readFile(path, text::Tokenizer::kMaxTokenizerBytes), path);
        if (!j.is_object()) failAt(path, "is not a tokenizer.json (not a JSON object)");
        if (!j.contains("added_tokens")) j["added_tokens"] = Json::array();
        for (const auto& t : j["added_tokens"])
            if (t.value("id", 0) >= m_layout.hostVocab)
                failAt(path, "has token id " + std::to_string(t.value("id", 0)) + " beyond the config's vocab_size");
        for (int i = 0; i < m_layout.chipTokens; ++i)
            j["added_tokens"].push_back({{"id", m_layout.hostVocab + i},
                                         {"content", m_chip.tokenTexts[size_t(i)]},
                                         {"single_word", false},
                                         {"lstrip", false},
                                         {"rstrip", false},
                                         {"normalized", false},
                                         {"special", true}});
        return j.dump();
    }

private:
    static ChipModel buildChip(const ChipSource& chip, const circuit::Geometry& g) {
        ChipModel m{circuit::Circuit(g), {}, {}};
        try {
            m = chip.build(g);
        } catch (
            const std::logic_error& e) {  // length_error: out of room; invalid_argument: a memory too big for a head
            failAt("the host's geometry",
                   std::string("cannot hold the circuit: ") + e.what() +
                       "; use a host with more linear-attention heads or a larger intermediate_size");
        }
        if (m.tokenTexts.size() != m.embeddings.size())
            throw std::logic_error("a chip's token texts and embeddings differ in number");
        return m;
    }

    DType dtypeOf(const std::string& name) const {
        bool norm = name.ends_with("layernorm.weight") || name == "model.norm.weight";
        return norm ? DType::F32 : m_dtype;
    }

    Job job(std::string name, std::vector<int64_t> shape, std::function<std::vector<float>()> values) {
        TensorSpec spec{name, dtypeOf(name), std::move(shape)};
        DType dtype = spec.dtype;
        return {spec, [values = std::move(values), dtype](SafetensorsWriter& out) {
                    std::vector<float> v = values();
                    out.write(encodeFloats(v.data(), v.size(), dtype));
                }};
    }

    // The embedding (or an untied LM head): the host's rows in its dims (times `scale`) with kappa at T,
    // then the chips'.
    Job vocabulary(const std::string& name, const TensorView& hostRows, float scale) {
        const SpliceLayout& L = m_layout;
        TensorSpec spec{name, m_dtype, {int64_t(L.hostVocab + L.chipTokens), int64_t(L.width)}};
        return {spec, [this, &hostRows, scale, dtype = m_dtype](SafetensorsWriter& out) {
                    const SpliceLayout& L = m_layout;
                    size_t H = size_t(L.width), h = size_t(L.hostWidth);
                    const int64_t block = 1024;
                    for (int64_t r = 0; r < L.hostVocab; r += block) {
                        int64_t n = std::min(block, int64_t(L.hostVocab) - r);
                        std::vector<float> host = hostRows.rows(r, n).toFloat(), rows(size_t(n) * H, 0.f);
                        for (float& x : host) x *= scale;
                        for (int64_t i = 0; i < n; ++i) {
                            std::copy_n(host.begin() + long(size_t(i) * h), h,
                                        rows.begin() + long(size_t(i) * H + size_t(L.hostOffset())));
                            rows[size_t(i) * H + size_t(L.flagDim)] = L.textFlag;
                        }
                        out.write(encodeFloats(rows.data(), rows.size(), dtype));
                    }
                    for (size_t id = 0; id < m_chip.embeddings.size(); ++id) {
                        std::vector<float> row = m_chip.embeddings.row(id);
                        row[size_t(L.flagDim)] = L.chipFlag;
                        out.write(encodeFloats(row.data(), row.size(), dtype));
                    }
                }};
    }

    Job hostTensor(const std::string& outName, const std::string& suffix, const TensorView& v) {
        const SpliceLayout& L = m_layout;
        int64_t h = L.hostWidth, H = L.width, at = L.hostOffset();
        ResidualSide side;
        try {
            side = residualSide(suffix);
        } catch (const std::out_of_range&) {
            failAt(m_hostDir, "holds tensor " + v.name + ", which is not part of a Qwen3.5 text layer");
        }
        auto misShaped = [&] { failAt(m_hostDir, "tensor " + v.name + " does not have the config's hidden size"); };
        std::vector<int64_t> shape = v.shape;
        switch (side) {
            case ResidualSide::None: return job(outName, shape, [&v] { return v.toFloat(); });
            case ResidualSide::ResidualNorm:
                if (shape != std::vector<int64_t>{h}) misShaped();
                return job(outName, {H}, [&v, at, ratio = double(h) / double(H), H] {
                    std::vector<float> out(size_t(H), 0.f), w = v.toFloat();
                    for (size_t i = 0; i < w.size(); ++i) out[size_t(at) + i] = compensated(w[i], ratio);
                    return out;
                });
            case ResidualSide::Columns:
                if (shape.size() != 2 || shape[1] != h) misShaped();
                return job(outName, {shape[0], H}, [&v, at, h, H] {
                    std::vector<float> w = v.toFloat(), out(size_t(v.shape[0] * H), 0.f);
                    for (int64_t r = 0; r < v.shape[0]; ++r)
                        std::copy_n(w.begin() + r * h, h, out.begin() + r * H + at);
                    return out;
                });
            case ResidualSide::Rows:
                if (shape.size() != 2 || shape[0] != h) misShaped();
                return job(outName, {H, shape[1]}, [&v, at, H, scale = L.hostScale] {
                    std::vector<float> w = v.toFloat(), out(size_t(H * v.shape[1]), 0.f);
                    for (float& x : w) x *= scale;  // what a layer adds to the residual, held times s
                    std::copy(w.begin(), w.end(), out.begin() + at * v.shape[1]);
                    return out;
                });
        }
        throw std::logic_error("unreachable");
    }

    std::vector<Job> plan() {
        const SpliceLayout& L = m_layout;
        std::vector<Job> jobs;
        const TensorView& embed = *m_checkpoint.find("embed_tokens.weight");
        jobs.push_back(vocabulary("model.embed_tokens.weight", embed, L.hostScale));
        if (!m_host.tieWordEmbeddings)
            jobs.push_back(vocabulary("lm_head.weight", m_checkpoint.require("lm_head.weight", embed.shape), 1));
        double finalDivisor = m_host.tieWordEmbeddings ? L.hostScale : 1;  // a tied head sees the scaled rows

        m_circuitTensors = m_chip.circuit.emit({}, true);
        for (auto& t : m_circuitTensors) {
            if (t.name == "embed_tokens.weight") continue;
            if (t.name == "norm.weight") {
                const TensorView& hostNorm = m_checkpoint.require("norm.weight", {int64_t(L.hostWidth)});
                jobs.push_back(job("model.norm.weight", t.shape, [&t, &hostNorm, finalDivisor, this] {
                    const SpliceLayout& L = m_layout;
                    std::vector<float> out = t.values, w = hostNorm.toFloat();
                    double ratio = double(L.hostWidth) / double(L.width);
                    for (size_t i = 0; i < w.size(); ++i)
                        out[size_t(L.hostOffset()) + i] = compensated(w[i], ratio, finalDivisor);
                    out[size_t(L.flagDim)] = L.flagGain - 1.f;
                    return out;
                }));
                continue;
            }
            jobs.push_back(job("model." + t.name, t.shape, [&t] {
                if (!t.sparse) return t.values;
                int64_t n = 1;
                for (int64_t d : t.shape) n *= d;
                std::vector<float> dense(size_t(n), 0.f);
                for (const auto& [index, w] : t.entries) dense[size_t(index)] = w;
                return dense;
            }));
        }

        std::set<std::string> seen = {"embed_tokens.weight", "norm.weight", "lm_head.weight"};
        for (int l = 0; l < L.hostLayers; ++l) {
            std::string prefix = "layers." + std::to_string(l) + ".";
            std::string outPrefix = "model.layers." + std::to_string(L.circuitLayers + l) + ".";
            for (const std::string& name : m_checkpoint.names()) {
                if (name.rfind(prefix, 0) != 0) continue;
                seen.insert(name);
                std::string suffix = name.substr(prefix.size());
                jobs.push_back(hostTensor(outPrefix + suffix, suffix, *m_checkpoint.find(name)));
            }
        }
        for (const std::string& name : m_checkpoint.names())
            if (!seen.count(name))
                failAt(m_hostDir, "holds tensor " + name + ", which no Qwen3.5 text layer of its config has");
        return jobs;
    }

    std::string m_hostDir;
    Qwen35Config m_host;
    Checkpoint m_checkpoint;
    SpliceOptions m_options;
    DType m_dtype = DType::F32;
    ChipModel m_chip{circuit::Circuit(circuit::Geometry{}), {}, {}};
    std::vector<circuit::NamedTensor> m_circuitTensors;
    SpliceLayout m_layout;
};

}  // namespace

ChipSource gpuChip() {
    ChipSource s;
    s.probeWidth = gpu::defaultMachineGeometry().hiddenSize;
    s.build = [](const circuit::Geometry& g) {
        gpu::Machine m = gpu::buildMachine(g);
        ChipModel chip{std::move(m.circuit), std::move(m.embeddings), {}};
        for (int id = 0; id < int(chip.embeddings.size()); ++id)
            chip.tokenTexts.push_back("<|gpu:" + gpu::Token::fromId(id).text() + "|>");
        return chip;
    };
    return s;
}

int splicedWidth(int circuitDims, int hostWidth) {
    for (int H = circuitDims + hostWidth + 2;; ++H) {
        int ballast = H;
        while (ballast % 4 == 0) ballast /= 4;
        if (circuitDims + hostWidth + 1 + ballast <= H) return H;
    }
}

std::string SpliceLayout::toJson() const {
    Json j = {{"width", width},          {"circuit_dims", circuitDims},     {"host_width", hostWidth},
              {"flag_dim", flagDim},     {"circuit_layers", circuitLayers}, {"host_layers", hostLayers},
              {"host_vocab", hostVocab}, {"chip_tokens", chipTokens},       {"text_flag", textFlag},
              {"chip_flag", chipFlag},   {"flag_gain", flagGain},           {"host_scale", hostScale}};
    return j.dump(2);
}

SpliceLayout SpliceLayout::parse(const std::string& json, const std::string& fileName) {
    SpliceLayout L;
    try {
        Json j = parseJsonDocument(json, fileName);
        L.width = j.at("width");
        L.circuitDims = j.at("circuit_dims");
        L.hostWidth = j.at("host_width");
        L.flagDim = j.at("flag_dim");
        L.circuitLayers = j.at("circuit_layers");
        L.hostLayers = j.at("host_layers");
        L.hostVocab = j.at("host_vocab");
        L.chipTokens = j.at("chip_tokens");
        L.textFlag = j.at("text_flag");
        L.chipFlag = j.at("chip_flag");
        L.flagGain = j.at("flag_gain");
        L.hostScale = j.value("host_scale", 1.0f);
    } catch (const Json::exception& e) {
        failAt(fileName, std::string("is not a splice layout: ") + e.what());
    }
    return L;
}

SpliceLayout SpliceLayout::load(const std::string& dir) {
    std::string path = checkpointFile(dir, kSpliceFile, "is this a checkpoint written by `qgpu build --host`?");
    return parse(readFile(path), path);
}

SpliceLayout spliceHost(const std::string& hostDir, const std::string& outDir, const ChipSource& chip,
                        const SpliceOptions& options) {
    if (!fs::is_directory(hostDir)) failAt(hostDir, "is not a directory; give a Qwen3.5 checkpoint directory");
    OutputDirectory out(outDir);  // checked before the GPU's layers are built
    const fs::path& partial = out.partial();
    Splicer splicer(hostDir, chip, options);
    std::string tokenizer = splicer.tokenizerJson();  // checked before gigabytes are written
    splicer.writeWeights(partial / "model.safetensors");
    writeTextFile(partial / "config.json", splicer.config().toJson());
    writeTextFile(partial / "tokenizer.json", tokenizer);
    writeTextFile(partial / kCircuitLayoutFile, splicer.layoutJson());
    writeTensorChecksums(partial.string());
    writeTextFile(partial / kSpliceFile, splicer.layout().toJson());
    for (const auto& entry : fs::directory_iterator(hostDir)) {  // tokenizer_config.json, chat template, ...
        std::string name = entry.path().filename().string();
        bool weights = name.ends_with(".safetensors") || name == "model.safetensors.index.json";
        if (entry.is_directory() || weights || fs::exists(partial / name)) continue;
        // Only the host folder's own plain files: a link out of it or a FIFO is refused, never followed.
        fs::copy_file(checkpointFile(hostDir, name, ""), partial / name);
    }
    out.commit();
    return splicer.layout();
}

}  // namespace qgpu
