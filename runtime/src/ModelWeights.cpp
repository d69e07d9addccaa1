#include "ModelWeights.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <optional>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/HostSplice.h"

namespace qgpu {

namespace {

// Rows at most this many use the int8 kernel directly; a longer prefill dequantises the weight to bf16
// once and multiplies in bf16, which is several times faster for many rows.
constexpr int64_t kInt8KernelRows = 8;
constexpr int64_t kQuantizeBlockRows = 8192;  // rows quantised at a time: bounds the fp32 temporary

}  // namespace

at::Tensor Linear::operator()(const at::Tensor& x) const {
    switch (weight.scalar_type()) {
        case at::kFloat: return at::matmul(x, weight.t());
        case at::kBFloat16: return at::linear(x.to(at::kBFloat16), weight).to(at::kFloat);
        case at::kChar:
            if (x.size(0) <= kInt8KernelRows && weight.is_cpu())
                return at::_weight_int8pack_mm(x.to(at::kBFloat16).contiguous(), weight, scale).to(at::kFloat);
            return at::linear(x.to(at::kBFloat16), weight.to(at::kBFloat16) * scale.unsqueeze(1)).to(at::kFloat);
        default: throw std::logic_error("unsupported weight dtype");
    }
}

at::Tensor Linear::rows(const at::Tensor& ids) const {
    at::Tensor r = weight.index_select(0, ids).to(at::kFloat);
    return scale.defined() ? r * scale.index_select(0, ids).to(at::kFloat).unsqueeze(1) : r;
}

at::Tensor Linear::toFloat() const {
    at::Tensor w = weight.to(at::kFloat);
    return scale.defined() ? w * scale.to(at::kFloat).unsqueeze(1) : w;
}

Linear quantizeRows(const at::Tensor& w) {
    int64_t n = w.size(0);
    Linear q{at::empty(w.sizes(), w.options().dtype(at::kChar)), at::empty({n}, w.options().dtype(at::kBFloat16))};
    for (int64_t r = 0; r < n; r += kQuantizeBlockRows) {
        int64_t end = std::min(n, r + kQuantizeBlockRows);
        at::Tensor block = w.slice(0, r, end).to(at::kFloat);
        at::Tensor scale = (block.abs().amax(1) / 127).clamp_min(1e-30).to(at::kBFloat16);
        q.weight.slice(0, r, end).copy_(at::round(block / scale.to(at::kFloat).unsqueeze(1)).clamp(-127, 127));
        q.scale.slice(0, r, end).copy_(scale);
    }
    return q;
}

std::vector<NamedTensor> bindTensors(const Qwen35Config& c, Qwen35Model::Weights& w) {
    int64_t h = c.hiddenSize, in = c.intermediateSize;
    std::vector<NamedTensor> out = {{"embed_tokens.weight", {c.vocabSize, h}, nullptr, &w.embed},
                                    {"norm.weight", {h}, &w.finalNorm, nullptr}};
    if (!c.tieWordEmbeddings) out.push_back({"lm_head.weight", {c.vocabSize, h}, nullptr, &w.lmHead});
    w.layers.resize(size_t(c.numLayers));
    for (int i = 0; i < c.numLayers; ++i) {
        LayerWeights& l = w.layers[size_t(i)];
        l.type = c.layerTypes[size_t(i)];
        std::string p = "layers." + std::to_string(i) + ".";
        auto plain = [&](const std::string& name, at::Tensor& t, std::vector<int64_t> shape) {
            out.push_back({p + name, std::move(shape), &t, nullptr});
        };
        auto linear = [&](const std::string& name, Linear& t, std::vector<int64_t> shape) {
            out.push_back({p + name, std::move(shape), nullptr, &t});
        };
        plain("input_layernorm.weight", l.inputNorm, {h});
        plain("post_attention_layernorm.weight", l.postNorm, {h});
        linear("mlp.gate_proj.weight", l.gate, {in, h});
        linear("mlp.up_proj.weight", l.up, {in, h});
        linear("mlp.down_proj.weight", l.down, {h, in});
        if (l.type == LayerType::LinearAttention) {
            int64_t channels = 2 * c.linearKeyDim() + c.linearValueDim(), hv = c.linearNumValueHeads;
            linear("linear_attn.in_proj_qkv.weight", l.inProjQkv, {channels, h});
            linear("linear_attn.in_proj_z.weight", l.inProjZ, {c.linearValueDim(), h});
            linear("linear_attn.in_proj_b.weight", l.inProjB, {hv, h});
            linear("linear_attn.in_proj_a.weight", l.inProjA, {hv, h});
            plain("linear_attn.conv1d.weight", l.conv, {channels, 1, c.convKernel});
            plain("linear_attn.dt_bias", l.dtBias, {hv});
            plain("linear_attn.A_log", l.aLog, {hv});
            plain("linear_attn.norm.weight", l.linearNorm, {c.linearValueHeadDim});
            linear("linear_attn.out_proj.weight", l.outProj, {h, c.linearValueDim()});
        } else {
            int64_t hd = c.headDim;
            linear("self_attn.q_proj.weight", l.qProj, {c.numHeads * hd * 2, h});
            linear("self_attn.k_proj.weight", l.kProj, {c.numKvHeads * hd, h});
            linear("self_attn.v_proj.weight", l.vProj, {c.numKvHeads * hd, h});
            linear("self_attn.o_proj.weight", l.oProj, {h, c.numHeads * hd});
            plain("self_attn.q_norm.weight", l.qNorm, {hd});
            plain("self_attn.k_norm.weight", l.kNorm, {hd});
        }
    }
    return out;
}

namespace {

at::ScalarType scalarType(DType t) {
    switch (t) {
        case DType::F32: return at::kFloat;
        case DType::F16: return at::kHalf;
        case DType::BF16: return at::kBFloat16;
    }
    throw std::logic_error("unknown dtype");
}

// Where a tensor of the model comes from: its name and shape in the checkpoint, and the window of it the
// model uses (rows [rowBegin, rowEnd), columns [colBegin, colEnd); all of it for a plain checkpoint).
struct Source {
    std::string name;
    std::vector<int64_t> shape;
    int64_t rowBegin = 0, rowEnd = -1, colBegin = 0, colEnd = -1;
};

// A plain checkpoint: every tensor as it is.
Source plainSource(const NamedTensor& t) { return {t.name, t.shape}; }

// A combined checkpoint's host: its layers follow the GPU's, its dims are [C, C + h) of H, its vocabulary
// the first rows of the embedding (and of an untied LM head).
Source windowSource(const NamedTensor& t, const SpliceLayout& L) {
    int64_t H = L.width, c0 = L.hostOffset(), c1 = c0 + L.hostWidth;
    if (t.name == "embed_tokens.weight" || t.name == "lm_head.weight")
        return {t.name, {L.hostVocab + L.chipTokens, H}, 0, L.hostVocab, c0, c1};
    if (t.name == "norm.weight") return {t.name, {H}, c0, c1};
    size_t dot = t.name.find('.', 7);  // "layers.N."
    int layer = std::stoi(t.name.substr(7, dot - 7));
    std::string suffix = t.name.substr(dot + 1);
    Source s{"layers." + std::to_string(L.circuitLayers + layer) + "." + suffix, t.shape};
    switch (residualSide(suffix)) {
        case ResidualSide::Columns: s.shape[1] = H, s.colBegin = c0, s.colEnd = c1; break;
        case ResidualSide::Rows: s.shape[0] = H, s.rowBegin = c0, s.rowEnd = c1; break;
        case ResidualSide::ResidualNorm: s.shape[0] = H, s.rowBegin = c0, s.rowEnd = c1; break;
        case ResidualSide::None: break;
    }
    return s;
}

// Reads one tensor: mapped from the file, cut to its window, then held as the format says. A tensor that
// ends up copied has its file pages released again, so the padded width never stays resident.
class TensorReader {
public:
    TensorReader(std::shared_ptr<const Checkpoint> ck, WeightFormat format, at::Device device)
        : m_ck(std::move(ck)), m_format(format), m_device(device) {}

    void read(const NamedTensor& t, const Source& s) {
        const TensorView& view = m_ck->require(s.name, s.shape);
        at::Tensor mapped = at::from_blob(
            const_cast<uint8_t*>(view.data), view.shape, [keep = m_ck](void*) {},
            at::TensorOptions().dtype(scalarType(view.dtype)));
        at::Tensor w = mapped;
        if (s.rowEnd >= 0) w = w.slice(0, s.rowBegin, s.rowEnd);
        if (s.colEnd >= 0) w = w.slice(1, s.colBegin, s.colEnd);
        checkFinite(t.name, s.name, w);
        if (t.plain) *t.plain = w.to(at::kFloat).contiguous().clone().to(m_device);
        if (t.linear) *t.linear = hold(w);
        if (!sharesMemory(t, view)) m_ck->releasePages(view);
    }

private:
    Linear hold(const at::Tensor& w) const {
        switch (m_format) {
            case WeightFormat::F32: return {w.to(at::kFloat).contiguous().to(m_device)};
            case WeightFormat::BF16: return {w.to(at::kBFloat16).contiguous().to(m_device)};
            case WeightFormat::Q8: {
                Linear q = quantizeRows(w);
                return {q.weight.to(m_device), q.scale.to(m_device)};
            }
        }
        throw std::logic_error("unknown weight format");
    }

    static bool sharesMemory(const NamedTensor& t, const TensorView& view) {
        if (!t.linear) return false;
        const auto* p = static_cast<const uint8_t*>(t.linear->weight.data_ptr());
        return p >= view.data && p < view.data + view.bytes;
    }

    // Row block by row block, so that the check's temporary stays small for a large embedding.
    void checkFinite(const std::string& name, const std::string& sourceName, const at::Tensor& w) const {
        int64_t rows = w.dim() == 0 ? 1 : w.size(0), perRow = rows ? w.numel() / rows : 0;
        for (int64_t r = 0; r < rows; r += kQuantizeBlockRows) {
            at::Tensor block = w.dim() == 0 ? w : w.slice(0, r, std::min(rows, r + kQuantizeBlockRows));
            at::Tensor finite = at::isfinite(block).flatten();
            if (finite.all().item<bool>()) continue;
            int64_t at = (~finite).nonzero()[0][0].item<int64_t>();
            bool nan = std::isnan(block.flatten()[at].to(at::kFloat).item<float>());
            failAt(m_ck->dir(), "tensor '" + sourceName + "' holds " + (nan ? "NaN" : "an infinity") + " at element " +
                                    std::to_string(r * perRow + at) + (name == sourceName ? "" : " of the host's part") +
                                    ": the checkpoint is damaged");
        }
    }

    std::shared_ptr<const Checkpoint> m_ck;
    WeightFormat m_format;
    at::Device m_device;
};

// The flag dim as the checkpoint stores it (in the matrices' dtype, so kappa may be rounded to bf16): the
// first text token's embedding and LM head row, and the final norm, at the flag dim.
ResidualWindow residualWindow(const Checkpoint& ck, const SpliceLayout& L, bool tied) {
    auto atFlag = [&](const std::string& name) {
        return ck.require(name, {L.hostVocab + L.chipTokens, L.width}).rows(0, 1).toFloat()[size_t(L.flagDim)];
    };
    float flag = atFlag("embed_tokens.weight");
    float normAtFlag = ck.require("norm.weight", {L.width}).toFloat()[size_t(L.flagDim)];
    return {L.width, flag, normAtFlag, tied ? flag : atFlag("lm_head.weight")};
}

// The host's text model inside a combined checkpoint: the host's width, layers and vocabulary.
Qwen35Config hostConfig(const Qwen35Config& combined, const SpliceLayout& L) {
    Qwen35Config c = combined;
    c.hiddenSize = L.hostWidth;
    c.numLayers = L.hostLayers;
    c.layerTypes.assign(combined.layerTypes.begin() + L.circuitLayers, combined.layerTypes.end());
    c.vocabSize = L.hostVocab;
    return c;
}

}  // namespace

std::unique_ptr<Qwen35Model::Weights> loadWeights(const std::string& dir, const ModelLoadOptions& options,
                                                  Qwen35Config& config) {
    config = Qwen35Config::load(dir);
    std::optional<SpliceLayout> layout;
    if (options.textOnly && std::filesystem::exists(std::filesystem::path(dir) / kSpliceFile)) {
        layout = SpliceLayout::load(dir);
        if (layout->circuitLayers + layout->hostLayers != config.numLayers ||
            layout->hostVocab + layout->chipTokens != config.vocabSize || layout->width != config.hiddenSize)
            failAt(dir, std::string(kSpliceFile) + " does not match config.json: write the checkpoint again");
        config = hostConfig(config, *layout);
    }
    at::Device device = resolveDevice(options.device) == ComputeDevice::Cuda ? at::Device(at::kCUDA) : at::kCPU;
    auto w = std::make_unique<Qwen35Model::Weights>();
    w->format = options.weights;
    w->device = device;
    auto ck = std::make_shared<const Checkpoint>(dir);
    TensorReader reader(ck, options.weights, device);
    std::vector<NamedTensor> named = bindTensors(config, *w);
    for (size_t i = 0; i < named.size(); ++i) {
        reader.read(named[i], layout ? windowSource(named[i], *layout) : plainSource(named[i]));
        if (options.progress) options.progress(int(i + 1), int(named.size()));
    }
    if (layout) w->window = residualWindow(*ck, *layout, config.tieWordEmbeddings);
    w->mapped = std::move(ck);
    return w;
}

}  // namespace qgpu
