#include "qgpu/runtime/Qwen35Model.h"

#include <ATen/ATen.h>

#include "ModelWeights.h"

#include <cmath>
#include <filesystem>
#include <fstream>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/TorchSetup.h"

namespace qgpu {

struct ModelState::Impl {
    int position = 0;
    std::vector<at::Tensor> conv;          // [channels, kernel - 1] per linear layer
    std::vector<at::Tensor> recurrent;     // [Hv, dk, dv] per linear layer
    std::vector<at::Tensor> keys, values;  // [kv heads, T, head dim] per attention layer
};

namespace {

// Zero-centred RMSNorm over the last dimension: x * rsqrt(mean(x^2) + eps) * (1 + w).
at::Tensor rmsNorm(const at::Tensor& x, const at::Tensor& w, float eps) {
    return x * at::rsqrt(x.pow(2).mean(-1, true) + eps) * (1 + w);
}

at::Tensor l2Norm(const at::Tensor& x) { return x * at::rsqrt(x.pow(2).sum(-1, true) + 1e-6); }

// The scale a residual norm multiplies each row by: over the model's own dims, or over the wider
// residual the window sits in (whose flag dim holds a constant).
at::Tensor residualScale(const at::Tensor& x, const ResidualWindow& window, float eps) {
    if (window.fullWidth == 0) return at::rsqrt(x.pow(2).mean(-1, true) + eps);
    return at::rsqrt((x.pow(2).sum(-1, true) + window.flag * window.flag) / window.fullWidth + eps);
}

at::Tensor residualNorm(const at::Tensor& x, const at::Tensor& w, const ResidualWindow& window, float eps) {
    return x * residualScale(x, window, eps) * (1 + w);
}

at::Tensor mlp(const LayerWeights& w, const at::Tensor& x) { return w.down(at::silu(w.gate(x)) * w.up(x)); }

// The delta rule token by token (q, k: [T, Hv, dk], v: [T, Hv, dv], beta, g: [T, Hv]; S: [Hv, dk, dv]).
at::Tensor sequentialDeltaRule(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& beta,
                               const at::Tensor& g, at::Tensor& S) {
    int64_t T = q.size(0), hv = q.size(1);
    std::vector<at::Tensor> outs;
    for (int64_t t = 0; t < T; ++t) {
        S = S * at::exp(g[t]).view({hv, 1, 1});
        at::Tensor kt = k[t].unsqueeze(1), m = at::bmm(kt, S);  // [Hv, 1, dv]
        at::Tensor delta = beta[t].view({hv, 1, 1}) * (v[t].unsqueeze(1) - m);
        S = S + at::bmm(k[t].unsqueeze(2), delta);
        outs.push_back(at::bmm(q[t].unsqueeze(1), S).squeeze(1));  // [Hv, dv]
    }
    return at::stack(outs);
}

// The reference implementation's chunked delta rule (torch_chunk_gated_delta_rule): chunks of 64 tokens,
// the in-chunk dependencies solved in WY form, the state carried from chunk to chunk. Same arguments.
at::Tensor chunkedDeltaRule(const at::Tensor& q, const at::Tensor& k, const at::Tensor& v, const at::Tensor& beta,
                            const at::Tensor& g, at::Tensor& S) {
    constexpr int64_t C = 64;
    int64_t T = q.size(0), H = q.size(1), dv = v.size(2);
    int64_t pad = (C - T % C) % C, n = (T + pad) / C;
    auto chunks = [&](const at::Tensor& x) {  // [T, H, d] -> [H, n, C, d], zero padded
        return at::constant_pad_nd(x.transpose(0, 1), {0, 0, 0, pad}).reshape({H, n, C, x.size(-1)});
    };
    at::Tensor b = at::constant_pad_nd(beta.t(), {0, pad}).reshape({H, n, C});
    at::Tensor gc = at::constant_pad_nd(g.t(), {0, pad}).reshape({H, n, C}).cumsum(-1);
    at::Tensor Q = chunks(q), K = chunks(k), V = chunks(v);
    at::Tensor kBeta = K * b.unsqueeze(-1), vBeta = V * b.unsqueeze(-1);
    at::Tensor decay = (gc.unsqueeze(-1) - gc.unsqueeze(-2)).tril().exp().tril();  // [H, n, C, C]
    at::TensorOptions flags = q.options().dtype(at::kBool);
    at::Tensor diagonalAndAbove = at::ones({C, C}, flags).triu(0), above = at::ones({C, C}, flags).triu(1);
    at::Tensor attn = -(at::matmul(kBeta, K.transpose(-1, -2)) * decay).masked_fill(diagonalAndAbove, 0);
    for (int64_t i = 1; i < C; ++i) {
        at::Tensor row = attn.select(-2, i).slice(-1, 0, i).clone();
        at::Tensor sub = attn.slice(-2, 0, i).slice(-1, 0, i).clone();
        attn.select(-2, i).slice(-1, 0, i).copy_(row + (row.unsqueeze(-1) * sub).sum(-2));
    }
    attn = attn + at::eye(C, q.options());
    at::Tensor value = at::matmul(attn, vBeta), kCumDecay = at::matmul(attn, kBeta * gc.exp().unsqueeze(-1));
    std::vector<at::Tensor> outs;
    for (int64_t i = 0; i < n; ++i) {
        at::Tensor qi = Q.select(1, i), ki = K.select(1, i), gi = gc.select(1, i);
        at::Tensor a = (at::matmul(qi, ki.transpose(-1, -2)) * decay.select(1, i)).masked_fill(above, 0);
        at::Tensor vNew = value.select(1, i) - at::matmul(kCumDecay.select(1, i), S);
        outs.push_back(at::matmul(qi * gi.exp().unsqueeze(-1), S) + at::matmul(a, vNew));  // [H, C, dv]
        at::Tensor last = gi.select(-1, C - 1);
        S = S * last.exp().view({H, 1, 1}) +
            at::matmul((ki * (last.unsqueeze(-1) - gi).exp().unsqueeze(-1)).transpose(-1, -2), vNew);
    }
    return at::stack(outs, 1).reshape({H, n * C, dv}).slice(1, 0, T).transpose(0, 1);
}

// Gated DeltaNet over T tokens: projections batched, then the delta rule (chunked for a prefill unless
// the model asks for the sequential rule).
at::Tensor gatedDeltaNet(const Qwen35Config& c, const LayerWeights& w, const at::Tensor& x, at::Tensor& convState,
                         at::Tensor& S, DeltaRule rule) {
    int64_t T = x.size(0), kd = c.linearKeyDim(), hk = c.linearNumKeyHeads, hv = c.linearNumValueHeads;
    int64_t dk = c.linearKeyHeadDim, dv = c.linearValueHeadDim, channels = 2 * kd + c.linearValueDim();
    at::Tensor seq = at::cat({convState, w.inProjQkv(x).t()}, 1);  // [C, K-1+T]
    convState = seq.slice(1, seq.size(1) - (c.convKernel - 1)).contiguous();
    at::Tensor qkv = at::silu(at::conv1d(seq.unsqueeze(0), w.conv, at::Tensor(), at::IntArrayRef{1}, at::IntArrayRef{0},
                                         at::IntArrayRef{1}, channels)
                                  .squeeze(0)
                                  .t());  // [T, C]
    at::Tensor q = l2Norm(qkv.slice(1, 0, kd).view({T, hk, dk})) * (1.0 / std::sqrt(double(dk)));
    at::Tensor k = l2Norm(qkv.slice(1, kd, 2 * kd).view({T, hk, dk}));
    at::Tensor v = qkv.slice(1, 2 * kd).view({T, hv, dv});
    if (hv != hk) {
        q = q.repeat_interleave(hv / hk, 1);
        k = k.repeat_interleave(hv / hk, 1);
    }
    at::Tensor beta = at::sigmoid(w.inProjB(x));                              // [T, Hv]
    at::Tensor g = -at::exp(w.aLog) * at::softplus(w.inProjA(x) + w.dtBias);  // [T, Hv]
    at::Tensor o = T > 1 && rule == DeltaRule::Chunked ? chunkedDeltaRule(q, k, v, beta, g, S)
                                                       : sequentialDeltaRule(q, k, v, beta, g, S);  // [T, Hv, dv]
    at::Tensor z = w.inProjZ(x).view({T, hv, dv});
    at::Tensor y = w.linearNorm * (o * at::rsqrt(o.pow(2).mean(-1, true) + c.rmsNormEps)) * at::silu(z);
    return w.outProj(y.reshape({T, hv * dv}));
}

at::Tensor rotate(const at::Tensor& x, const at::Tensor& cos, const at::Tensor& sin, int rot) {
    at::Tensor r = x.slice(-1, 0, rot), rest = x.slice(-1, rot);
    at::Tensor half = at::cat({-r.slice(-1, rot / 2), r.slice(-1, 0, rot / 2)}, -1);
    return at::cat({r * cos + half * sin, rest}, -1);
}

at::Tensor attention(const Qwen35Config& c, const LayerWeights& w, const at::Tensor& x, int position, at::Tensor& keys,
                     at::Tensor& values) {
    int64_t T = x.size(0), nh = c.numHeads, nkv = c.numKvHeads, hd = c.headDim;
    int rot = c.rotaryDim();
    at::Tensor qg = w.qProj(x).view({T, nh, 2 * hd});
    at::Tensor q = rmsNorm(qg.slice(2, 0, hd), w.qNorm, c.rmsNormEps), gate = qg.slice(2, hd);
    at::Tensor k = rmsNorm(w.kProj(x).view({T, nkv, hd}), w.kNorm, c.rmsNormEps);
    at::Tensor v = w.vProj(x).view({T, nkv, hd});
    at::Tensor pos = at::arange(position, position + T, x.options()).unsqueeze(1);
    at::Tensor invFreq =
        at::pow(c.ropeTheta, -at::arange(0, rot, 2, x.options().dtype(at::kDouble)) / rot).to(at::kFloat);
    at::Tensor freqs = pos * invFreq.unsqueeze(0);  // [T, rot/2]
    at::Tensor cos = at::cat({freqs, freqs}, 1).cos().unsqueeze(1), sin = at::cat({freqs, freqs}, 1).sin().unsqueeze(1);
    q = rotate(q, cos, sin, rot);
    k = rotate(k, cos, sin, rot);
    keys = keys.defined() ? at::cat({keys, k.transpose(0, 1)}, 1) : k.transpose(0, 1).contiguous();
    values = values.defined() ? at::cat({values, v.transpose(0, 1)}, 1) : v.transpose(0, 1).contiguous();
    int64_t total = keys.size(1);
    at::Tensor kk = keys.repeat_interleave(nh / nkv, 0), vv = values.repeat_interleave(nh / nkv, 0);  // [nh, total, hd]
    at::Tensor scores = at::matmul(q.transpose(0, 1), kk.transpose(1, 2)) / std::sqrt(double(hd));    // [nh, T, total]
    at::TensorOptions longs = x.options().dtype(at::kLong);
    at::Tensor causal = at::arange(total, longs).unsqueeze(0) > (at::arange(T, longs).unsqueeze(1) + position);
    scores = scores.masked_fill(causal.unsqueeze(0), -std::numeric_limits<float>::infinity());
    at::Tensor out = at::matmul(at::softmax(scores, -1), vv).transpose(0, 1);  // [T, nh, hd]
    return w.oProj((out * at::sigmoid(gate)).reshape({T, nh * hd}));
}

}  // namespace

ModelState::ModelState() : impl(std::make_unique<Impl>()) {}
ModelState::~ModelState() = default;
ModelState::ModelState(ModelState&&) noexcept = default;
ModelState& ModelState::operator=(ModelState&&) noexcept = default;

ModelState ModelState::clone() const {
    ModelState s;
    s.impl->position = impl->position;
    auto copy = [](const std::vector<at::Tensor>& v) {
        std::vector<at::Tensor> o;
        for (const auto& t : v) o.push_back(t.defined() ? t.clone() : t);
        return o;
    };
    s.impl->conv = copy(impl->conv);
    s.impl->recurrent = copy(impl->recurrent);
    s.impl->keys = copy(impl->keys);
    s.impl->values = copy(impl->values);
    return s;
}

int ModelState::position() const { return impl->position; }

std::vector<float> ModelState::recurrentState(int layer) const {
    const at::Tensor& t = impl->recurrent.at(size_t(layer));
    if (!t.defined())
        throw DiagnosticError(Diagnostic{"", 0, 0, "layer " + std::to_string(layer) + " has no recurrent state"});
    at::Tensor c = t.cpu().contiguous();
    return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

void ModelState::setRecurrentState(int layer, const std::vector<float>& values) {
    at::Tensor& t = impl->recurrent.at(size_t(layer));
    if (!t.defined() || int64_t(values.size()) != t.numel())
        throw DiagnosticError(
            Diagnostic{"", 0, 0, "recurrent state of layer " + std::to_string(layer) + " has a different size"});
    t = at::from_blob(const_cast<float*>(values.data()), t.sizes(), at::kFloat).to(t.device(), false, true);
}

const char* weightFormatName(WeightFormat f) {
    switch (f) {
        case WeightFormat::F32: return "f32";
        case WeightFormat::BF16: return "bf16";
        case WeightFormat::Q8: return "q8";
    }
    return "?";
}

WeightFormat parseWeightFormat(const std::string& text, const std::string& flag) {
    for (WeightFormat f : {WeightFormat::F32, WeightFormat::BF16, WeightFormat::Q8})
        if (text == weightFormatName(f)) return f;
    throw DiagnosticError(Diagnostic{"", 0, 0, flag + " must be f32, bf16 or q8, not '" + text + "'"});
}

Qwen35Model::Qwen35Model(Qwen35Config config, std::unique_ptr<Weights> weights)
    : m_config(std::move(config)), m_weights(std::move(weights)) {
    initTorch();
}

Qwen35Model::~Qwen35Model() = default;

WeightFormat Qwen35Model::weightFormat() const { return m_weights->format; }

ComputeDevice Qwen35Model::device() const {
    return m_weights->device.is_cuda() ? ComputeDevice::Cuda : ComputeDevice::Cpu;
}

std::unique_ptr<Qwen35Model> Qwen35Model::load(const std::string& dir, const ModelLoadOptions& options) {
    initTorch();
    Qwen35Config config;
    std::unique_ptr<Weights> w = loadWeights(dir, options, config);
    return std::unique_ptr<Qwen35Model>(new Qwen35Model(std::move(config), std::move(w)));
}

std::unique_ptr<Qwen35Model> Qwen35Model::fromTensors(const Qwen35Config& c, const TensorSource& tensor) {
    initTorch();
    auto w = std::make_unique<Weights>();
    for (const NamedTensor& t : bindTensors(c, *w)) {
        std::vector<float> v = tensor(t.name, t.shape);
        at::Tensor values = at::from_blob(v.data(), t.shape, at::kFloat).clone();
        if (t.plain) *t.plain = values;
        if (t.linear) *t.linear = {values};
    }
    return std::unique_ptr<Qwen35Model>(new Qwen35Model(c, std::move(w)));
}

std::unique_ptr<Qwen35Model> Qwen35Model::random(const Qwen35Config& c, uint64_t seed) {
    initTorch();
    auto gen = at::detail::createCPUGenerator(seed);
    auto w = std::make_unique<Weights>();
    for (const NamedTensor& named : bindTensors(c, *w)) {
        const std::string& n = named.name;
        const std::vector<int64_t>& shape = named.shape;
        at::Tensor t;
        if (n.find("norm") != std::string::npos && n.find("linear_attn.norm") == std::string::npos)
            t = at::zeros(shape);
        else if (n.find("linear_attn.norm") != std::string::npos)
            t = at::ones(shape);
        else if (n.find("A_log") != std::string::npos)
            t = at::log(at::empty(shape).uniform_(1, 16, gen));
        else if (n.find("dt_bias") != std::string::npos)
            t = at::empty(shape).uniform_(-1, 1, gen);
        else if (n.find("conv1d") != std::string::npos)
            t = at::empty(shape).normal_(0, 0.3, gen);
        else
            t = at::empty(shape).normal_(0, 0.02, gen);
        if (named.plain) *named.plain = t;
        if (named.linear) *named.linear = {t};
    }
    return std::unique_ptr<Qwen35Model>(new Qwen35Model(c, std::move(w)));
}

void Qwen35Model::save(const std::string& dir, DType dtype) const {
    Weights copy = *m_weights;
    std::vector<TensorData> tensors;
    for (const NamedTensor& t : bindTensors(m_config, copy)) {
        at::Tensor c = (t.plain ? t.plain->to(at::kFloat) : t.linear->toFloat()).cpu().contiguous();
        std::vector<float> v(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
        tensors.push_back(TensorData::fromFloat("model." + t.name, c.sizes().vec(), v, dtype));
    }
    writeSafetensors((std::filesystem::path(dir) / "model.safetensors").string(), tensors, {{"format", "pt"}});
    std::ofstream(std::filesystem::path(dir) / "config.json") << m_config.toJson();
}

ModelState Qwen35Model::newState() const {
    ModelState s;
    const Qwen35Config& c = m_config;
    int64_t channels = 2 * c.linearKeyDim() + c.linearValueDim();
    at::TensorOptions floats = at::TensorOptions().device(m_weights->device);
    for (LayerType t : c.layerTypes) {
        bool linearLayer = t == LayerType::LinearAttention;
        s.impl->conv.push_back(linearLayer ? at::zeros({channels, c.convKernel - 1}, floats) : at::Tensor());
        s.impl->recurrent.push_back(
            linearLayer ? at::zeros({c.linearNumValueHeads, c.linearKeyHeadDim, c.linearValueHeadDim}, floats)
                        : at::Tensor());
        s.impl->keys.emplace_back();
        s.impl->values.emplace_back();
    }
    return s;
}

namespace {

std::vector<float> toVector(const at::Tensor& t) {
    at::Tensor c = t.cpu().contiguous();
    return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

// Embeds the tokens and runs every decoder layer; returns the residual stream [T, hidden].
at::Tensor runLayers(const Qwen35Config& c, const Qwen35Model::Weights& weights, const std::vector<int>& tokens,
                     ModelState::Impl& s, DeltaRule rule) {
    if (tokens.empty()) throw DiagnosticError(Diagnostic{"", 0, 0, "the model was given no tokens"});
    if (s.conv.size() != size_t(c.numLayers))
        throw std::invalid_argument("this state was not made by this model's newState()");
    for (int t : tokens)
        if (t < 0 || t >= c.vocabSize)
            throw DiagnosticError(Diagnostic{
                "", 0, 0,
                "token " + std::to_string(t) + " is outside the vocabulary of " + std::to_string(c.vocabSize)});
    at::Tensor ids = at::tensor(std::vector<int64_t>(tokens.begin(), tokens.end()), at::kLong).to(weights.device);
    at::Tensor x = weights.embed.rows(ids);
    for (size_t i = 0; i < weights.layers.size(); ++i) {
        const LayerWeights& w = weights.layers[i];
        at::Tensor normed = residualNorm(x, w.inputNorm, weights.window, c.rmsNormEps);
        at::Tensor mixed = w.type == LayerType::LinearAttention
                               ? gatedDeltaNet(c, w, normed, s.conv[i], s.recurrent[i], rule)
                               : attention(c, w, normed, s.position, s.keys[i], s.values[i]);
        at::Tensor h = x + mixed;
        x = h + mlp(w, residualNorm(h, w.postNorm, weights.window, c.rmsNormEps));
    }
    s.position += int(tokens.size());
    return x;
}

}  // namespace

std::vector<float> Qwen35Model::forward(const std::vector<int>& tokens, ModelState& state, bool allPositions) const {
    at::NoGradGuard noGrad;
    at::Tensor x = runLayers(m_config, *m_weights, tokens, *state.impl, m_prefillRule);
    if (!allPositions) x = x.slice(0, x.size(0) - 1);
    const Weights& w = *m_weights;
    const Linear& head = w.lmHead.defined() ? w.lmHead : w.embed;
    at::Tensor scale = residualScale(x, w.window, m_config.rmsNormEps);
    at::Tensor logits = head(x * scale * (1 + w.finalNorm));
    if (w.window.fullWidth)  // the flag dim's share of every logit, as the combined model's LM head adds it
        logits = logits + w.window.flag * scale * (1 + w.window.finalFlagWeight) * w.window.headFlag;
    return toVector(logits);
}

std::vector<float> Qwen35Model::hiddenStates(const std::vector<int>& tokens, ModelState& state) const {
    at::NoGradGuard noGrad;
    return toVector(runLayers(m_config, *m_weights, tokens, *state.impl, m_prefillRule));
}

}  // namespace qgpu
