#include "ModelWeights.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <exception>
#include <filesystem>
#include <functional>
#include <mutex>
#include <optional>
#include <thread>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/HostSplice.h"

namespace qgpu {

namespace {

c10::OperatorHandle quantizedOp(const char* name) { return c10::Dispatcher::singleton().findSchemaOrThrow(name, ""); }

}  // namespace

at::Tensor Linear::operator()(const at::Tensor& x) const {
    if (!packed.isNone()) {
        static const c10::OperatorHandle linearDynamic = quantizedOp("quantized::linear_dynamic");
        // reduce_range: the activations quantised to 7 bits. FBGEMM's AVX2 kernels add pairs of u8 x s8
        // products in int16 (vpmaddubsw), which saturates with 8-bit activations and full-range weights;
        // on a CPU without VNNI that took the logits' correlation with f32 from 0.999 to 0.98.
        constexpr bool kReduceRange = true;
        torch::jit::Stack stack{x.contiguous(), packed, kReduceRange};
        linearDynamic.callBoxed(&stack);
        return stack[0].toTensor();
    }
    switch (weight.scalar_type()) {
        case at::kFloat: return at::matmul(x, weight.t());
        case at::kBFloat16: return at::linear(x.to(at::kBFloat16), weight).to(at::kFloat);
        case at::kChar:
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

namespace {

// Row by row in one pass over the source (a window of a mapped file included): each row's absmax, then
// its int8 values, rounded half away from zero.
template <typename T>
void quantizeRowsInto(const at::Tensor& w, at::Tensor& q, at::Tensor& scales) {
    const T* src = w.data_ptr<T>();
    int8_t* dst = q.data_ptr<int8_t>();
    float* scale = scales.data_ptr<float>();
    int64_t cols = w.size(1), stride = w.stride(0);
    for (int64_t r = 0; r < w.size(0); ++r) {
        const T* row = src + r * stride;
        float absmax = 0;
        for (int64_t c = 0; c < cols; ++c) absmax = std::max(absmax, std::abs(float(row[c])));
        float s = std::max(absmax / 127.f, 1e-30f), inverse = 1.f / s;
        for (int64_t c = 0; c < cols; ++c) {
            float v = float(row[c]) * inverse;
            dst[r * cols + c] = int8_t(std::clamp(v + std::copysign(0.5f, v), -127.f, 127.f));
        }
        scale[r] = s;
    }
}

}  // namespace

Linear quantizeRows(const at::Tensor& w, at::Device device) {
    int64_t n = w.size(0);
    at::Tensor q = at::empty(w.sizes(), at::TensorOptions().dtype(at::kChar)), scales = at::empty({n}, at::kFloat);
    at::Tensor source = w.stride(1) == 1 ? w : w.contiguous();
    switch (source.scalar_type()) {
        case at::kFloat: quantizeRowsInto<float>(source, q, scales); break;
        case at::kBFloat16: quantizeRowsInto<at::BFloat16>(source, q, scales); break;
        case at::kHalf: quantizeRowsInto<at::Half>(source, q, scales); break;
        default: throw std::logic_error("unsupported weight dtype");
    }
    if (device.is_cuda()) return {q.to(device), scales.to(at::kBFloat16).to(device), {}};
    static const c10::OperatorHandle prepack = quantizedOp("quantized::linear_prepack");
    at::Tensor quantized =
        at::_make_per_channel_quantized_tensor(q, scales.to(at::kDouble), at::zeros({n}, at::kLong), 0);
    torch::jit::Stack stack{quantized, c10::IValue()};
    prepack.callBoxed(&stack);
    return {w, {}, stack[0]};
}

std::vector<NamedTensor> bindTensors(const Qwen35Config& c, Qwen35Model::Weights& w) {
    int64_t h = c.hiddenSize, in = c.intermediateSize;
    std::vector<NamedTensor> out = {{"embed_tokens.weight", {c.vocabSize, h}, nullptr, &w.embed}};
    if (!c.tieWordEmbeddings) out.push_back({"lm_head.weight", {c.vocabSize, h}, nullptr, &w.lmHead});
    out.push_back({"norm.weight", {h}, &w.finalNorm, nullptr});
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

// The first element (in row-major order) whose exponent bits are all ones (an infinity or NaN), or -1. Reads
// the bits in place, rows of a window included, with no temporary: a check over gigabytes of mapped weights.
int64_t firstNonFinite(const at::Tensor& w) {
    int64_t rows = w.dim() == 0 ? 1 : w.size(0), perRow = rows ? w.numel() / rows : 0;
    int64_t rowStride = w.dim() <= 1 ? perRow : w.stride(0);
    if (w.dim() > 2 && !w.is_contiguous()) throw std::logic_error("a window of a tensor of more than 2 dims");
    auto scan = [&](auto bits, auto exponent) -> int64_t {
        const auto* p = static_cast<const decltype(bits)*>(w.data_ptr());
        for (int64_t r = 0; r < rows; ++r)
            for (int64_t i = 0; i < perRow; ++i)
                if ((p[r * rowStride + i] & exponent) == exponent) return r * perRow + i;
        return -1;
    };
    switch (w.scalar_type()) {
        case at::kFloat: return scan(uint32_t{}, uint32_t{0x7F800000});
        case at::kBFloat16: return scan(uint16_t{}, uint16_t{0x7F80});
        case at::kHalf: return scan(uint16_t{}, uint16_t{0x7C00});
        default: throw std::logic_error("unsupported checkpoint dtype");
    }
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
        if (!readsMapped(t, view)) m_ck->releasePages(view);
    }

private:
    Linear hold(const at::Tensor& w) const {
        switch (m_format) {
            case WeightFormat::F32: return {w.to(at::kFloat).contiguous().to(m_device)};
            case WeightFormat::BF16: return {w.to(at::kBFloat16).contiguous().to(m_device)};
            case WeightFormat::Q8: return quantizeRows(w, m_device);
        }
        throw std::logic_error("unknown weight format");
    }

    // Whether the model computes from the file's pages themselves (a mapped weight), which must then
    // stay; the pages of anything copied, converted or quantised are released.
    bool readsMapped(const NamedTensor& t, const TensorView& view) const {
        if (!t.linear || m_format == WeightFormat::Q8 || !t.linear->weight.is_cpu()) return false;
        const auto* p = static_cast<const uint8_t*>(t.linear->weight.data_ptr());
        return p >= view.data && p < view.data + view.bytes;
    }

    void checkFinite(const std::string& name, const std::string& sourceName, const at::Tensor& w) const {
        int64_t index = firstNonFinite(w);
        if (index < 0) return;
        bool nan = std::isnan(w.flatten()[index].to(at::kFloat).item<float>());
        failAt(m_ck->dir(), "tensor '" + sourceName + "' holds " + (nan ? "NaN" : "an infinity") + " at element " +
                                std::to_string(index) + (name == sourceName ? "" : " of the host's part") +
                                ": the checkpoint is damaged");
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

// Tensors are read (checked, cut, converted, quantised and packed) two at a time: packing for FBGEMM is
// single-threaded, and the rest is a pass over memory per tensor.
constexpr int kLoadThreads = 2;

// Calls work(i) for every i in [0, count) on `threads` threads. After an exception no new i starts; the
// exception of the lowest i is rethrown here, so a checkpoint with several faults reports the same one
// every time (every lower i had started, and ran to its end).
void forEachOnThreads(size_t count, int threads, const std::function<void(size_t)>& work) {
    std::atomic<size_t> next{0};
    std::exception_ptr error;
    size_t errorAt = count;
    std::mutex errorMutex;
    auto loop = [&] {
        for (size_t i; (i = next++) < count;) {
            try {
                work(i);
            } catch (...) {
                std::lock_guard<std::mutex> lock(errorMutex);
                if (i < errorAt) {
                    error = std::current_exception();
                    errorAt = i;
                }
                next = count;
            }
        }
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < threads; ++t) pool.emplace_back(loop);
    loop();
    for (std::thread& t : pool) t.join();
    if (error) std::rethrow_exception(error);
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
    std::mutex progressMutex;
    int done = 0;
    auto read = [&](size_t i) {
        reader.read(named[i], layout ? windowSource(named[i], *layout) : plainSource(named[i]));
        std::lock_guard<std::mutex> lock(progressMutex);
        if (options.progress) options.progress(++done, int(named.size()));
    };
    // The vocabulary matrices (embedding, untied LM head) come first and one at a time: each is as large as
    // several layers, and its temporaries should not meet another's.
    size_t vocabularies = config.tieWordEmbeddings ? 1 : 2;
    for (size_t i = 0; i < vocabularies; ++i) read(i);
    forEachOnThreads(named.size() - vocabularies, kLoadThreads, [&](size_t i) { read(vocabularies + i); });
    if (layout) w->window = residualWindow(*ck, *layout, config.tieWordEmbeddings);
    w->mapped = std::move(ck);
    return w;
}

}  // namespace qgpu
