#include "qgpu/runtime/SparseModel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>

#include "HelperThread.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/TorchSetup.h"

namespace qgpu {

namespace {

// Compressed rows (or columns) of a dense row-major matrix: y[r] = sum over the row's non-zeros.
struct Sparse {
    std::vector<int> start, column;
    std::vector<float> value;
    int rows = 0;

    // Rows of a dense row-major matrix; with byColumns its columns instead (entry i of column c is row
    // column[i] with value[i]), for y += A x over the few non-zero x (scatter). The circuit's sums are
    // exact, so their order does not matter.
    static Sparse of(const std::vector<float>& dense, int rows, int columns, bool byColumns = false) {
        Sparse s;
        s.rows = byColumns ? columns : rows;
        // Two row-major passes (the matrices are large; a column-major walk would miss the cache on every
        // entry): one counts each line's non-zeros, one places them, minor index ascending within a line.
        auto each = [&](auto&& visit) {
            for (int r = 0; r < rows; ++r) {
                const float* row = dense.data() + size_t(r) * size_t(columns);
                for (int c = 0; c < columns; ++c)
                    if (row[c] != 0) visit(byColumns ? c : r, byColumns ? r : c, row[c]);
            }
        };
        s.start.assign(size_t(s.rows) + 1, 0);
        each([&](int major, int, float) { ++s.start[size_t(major) + 1]; });
        for (size_t i = 1; i < s.start.size(); ++i) s.start[i] += s.start[i - 1];
        s.column.resize(size_t(s.start.back()));
        s.value.resize(size_t(s.start.back()));
        std::vector<int> next(s.start.begin(), s.start.end() - 1);
        each([&](int major, int minor, float w) {
            size_t at = size_t(next[size_t(major)]++);
            s.column[at] = minor;
            s.value[at] = w;
        });
        return s;
    }
    // The same from the matrix's non-zero entries (row-major flat index, ascending): identical arrays.
    static Sparse ofEntries(const std::vector<std::pair<int64_t, float>>& entries, int rows, int columns,
                            bool byColumns = false) {
        Sparse s;
        s.rows = byColumns ? columns : rows;
        auto major = [&](int64_t index) { return int(byColumns ? index % columns : index / columns); };
        s.start.assign(size_t(s.rows) + 1, 0);
        for (const auto& e : entries) ++s.start[size_t(major(e.first)) + 1];
        for (size_t i = 1; i < s.start.size(); ++i) s.start[i] += s.start[i - 1];
        s.column.resize(entries.size());
        s.value.resize(entries.size());
        std::vector<int> next(s.start.begin(), s.start.end() - 1);
        for (const auto& [index, w] : entries) {
            size_t at = size_t(next[size_t(major(index))]++);
            s.column[at] = int(byColumns ? index / columns : index % columns);
            s.value[at] = w;
        }
        return s;
    }
    void scatter(int c, float x, float* y) const {
        for (int i = start[size_t(c)]; i < start[size_t(c) + 1]; ++i) y[column[size_t(i)]] += value[size_t(i)] * x;
    }
    // Four partial sums, so that the gathers overlap instead of waiting on one chain of adds. (The circuit's sums
    // are exact, so their order does not matter; on other weights this is one more float rounding order.)
    float row(int r, const float* x) const {
        const int* c = column.data();
        const float* v = value.data();
        int i = start[size_t(r)], end = start[size_t(r) + 1];
        float s0 = 0, s1 = 0, s2 = 0, s3 = 0;
        for (; i + 4 <= end; i += 4) {
            s0 += v[i] * x[c[i]];
            s1 += v[i + 1] * x[c[i + 1]];
            s2 += v[i + 2] * x[c[i + 2]];
            s3 += v[i + 3] * x[c[i + 3]];
        }
        for (; i < end; ++i) s0 += v[i] * x[c[i]];
        return (s0 + s1) + (s2 + s3);
    }
    bool empty(int r) const { return start[size_t(r)] == start[size_t(r) + 1]; }
};

// Outside (-89, 18) the formula's value needs no exp: exp(-x) overflows to inf (x / inf = -0), or
// 1 + exp(-x) rounds to 1 (x / 1 = x). Most of the circuit's neurons sit there.
float silu(float x) {
    if (x == 0) return x;  // +-0 / 2, without the exp
    if (x < -89.f) return -0.f;
    if (x > 18.f) return x;
    return x / (1.f + std::exp(-x));
}
float sigmoid(float x) { return 1.f / (1.f + std::exp(-x)); }
float softplus(float x) { return x > 20.f ? x : std::log1p(std::exp(x)); }

// Zero-centred RMSNorm of a whole vector into `out`.
void rmsNorm(const std::vector<float>& x, const std::vector<float>& w, float eps, std::vector<float>& out) {
    float sum = 0;
    for (float v : x) sum += v * v;
    float scale = 1.f / std::sqrt(sum / float(x.size()) + eps);
    out.resize(x.size());
    for (size_t i = 0; i < x.size(); ++i) out[i] = x[i] * scale * (1.f + w[i]);
}

// logits += head^T y, head dim-major; each logit summed in dim order. No aliasing: the compiler vectorises it.
void headProducts(const float* __restrict column, const std::vector<float>& y, std::vector<float>& logits) {
    float* __restrict out = logits.data();
    for (size_t i = 0; i < y.size(); ++i, column += logits.size()) {
        const float weight = y[i];
        for (size_t t = 0; t < logits.size(); ++t) out[t] += column[t] * weight;
    }
}

// The index that divides `units` into two runs of about equal cost.
template <typename Cost>
size_t balancedSplit(const std::vector<int>& units, Cost cost) {
    size_t total = 0, sum = 0, i = 0;
    for (int u : units) total += cost(u);
    while (i < units.size() && 2 * sum < total) sum += cost(units[i++]);
    return i;
}

}  // namespace

struct SparseModel::Layer {
    std::vector<float> inputNorm, postNorm, conv, dtBias, aLog, linearNorm;
    Sparse qkv, z, b, a, gate, up;
    Sparse outProj, down;           // by columns
    std::vector<int> liveChannels;  // qkv rows with a non-zero weight
    std::vector<bool> pastTaps;     // per channel: its conv reads earlier tokens (a non-zero earlier tap)
    std::vector<int> liveNeurons;   // MLP neurons with a non-zero gate (silu(0) = 0: the others write nothing)
    // Heads whose query or key has a live channel. The others never write (their key is 0) and read 0,
    // so their state stays 0 and their output is 0: they are skipped.
    std::vector<int> liveHeads;
    // Where two threads divide the live channels, heads and neurons: about half the weights each.
    size_t channelSplit = 0, headSplit = 0, neuronSplit = 0;
};

SparseModel::~SparseModel() = default;

std::unique_ptr<SparseModel> SparseModel::fromTensors(const Qwen35Config& c, const Qwen35Model::TensorSource& tensor) {
    return fromTensors(c, tensor, [](const std::string&) { return std::nullopt; });
}

std::unique_ptr<SparseModel> SparseModel::fromTensors(const Qwen35Config& c, const Qwen35Model::TensorSource& tensor,
                                                      const EntrySource& entries, std::optional<BaseRows> embeddings) {
    for (LayerType t : c.layerTypes)
        if (t != LayerType::LinearAttention)
            throw DiagnosticError(
                Diagnostic{"", 0, 0, "the sparse path runs Gated DeltaNet layers only; use the dense path"});
    std::unique_ptr<SparseModel> m(new SparseModel());
    m->m_config = c;
    int64_t h = c.hiddenSize, in = c.intermediateSize, hv = c.linearNumValueHeads;
    int64_t channels = 2 * c.linearKeyDim() + c.linearValueDim();
    if (embeddings) {
        if (int64_t(embeddings->size()) != c.vocabSize || int64_t(embeddings->width()) != h)
            throw std::invalid_argument("the token embeddings are not [vocab_size, hidden_size]");
        m->m_embed = std::move(*embeddings);
    } else {
        std::vector<float> dense = tensor("embed_tokens.weight", {c.vocabSize, h});
        for (int64_t t = 0; t < c.vocabSize; ++t)
            m->m_embed.addRow(std::vector<float>(dense.begin() + t * h, dense.begin() + (t + 1) * h));
    }
    const BaseRows& embed = m->m_embed;
    m->m_finalNorm = tensor("norm.weight", {h});
    // The LM head reads only dims the final norm keeps (1 + w != 0): a contiguous copy of those columns.
    std::vector<int> headIndex(size_t(h), -1);  // a dim's place among them
    for (int64_t d = 0; d < h; ++d)
        if (1.f + m->m_finalNorm[size_t(d)] != 0) {
            headIndex[size_t(d)] = int(m->m_headDims.size());
            m->m_headDims.push_back(size_t(d));
        }
    // Tokens whose rows agree on those dims (bit for bit) share one logit: the head holds each distinct row
    // once (the compiled GPU's loading tokens all have the same, empty code). A row is keyed by where it
    // differs from the base there.
    std::unordered_map<std::string, int> distinct;
    std::vector<size_t>& firstOf = m->m_firstOf;
    for (int64_t t = 0; t < c.vocabSize; ++t) {
        std::string key;
        for (const auto& [d, value] : embed.changes(size_t(t))) {
            float base = embed.base()[size_t(d)];
            if (headIndex[size_t(d)] < 0 || std::memcmp(&value, &base, sizeof(float)) == 0) continue;
            key.append(reinterpret_cast<const char*>(&d), sizeof(int));
            key.append(reinterpret_cast<const char*>(&value), sizeof(float));
        }
        auto [it, added] = distinct.emplace(std::move(key), int(firstOf.size()));
        if (added) firstOf.push_back(size_t(t));
        m->m_headRow.push_back(it->second);
    }
    std::vector<std::vector<float>> rows;  // the distinct rows on the head's dims
    for (size_t t : firstOf) {
        std::vector<float>& row = rows.emplace_back();
        for (size_t d : m->m_headDims) row.push_back(embed.base()[d]);
        for (const auto& [d, value] : embed.changes(t))
            if (headIndex[size_t(d)] >= 0) row[size_t(headIndex[size_t(d)])] = value;
    }
    // The compiled GPU's code rows are +-1: as bytes, a quarter of the memory to stream per token, and greedy
    // decoding searches them instead of computing every logit.
    m->m_integerHead = IntegerHead::fromRows(rows, m->m_headDims.size());
    // Otherwise dim-major: the logits accumulate one dim at a time over the distinct rows (vectorised), each
    // logit still summed in dim order.
    if (!m->m_integerHead)
        for (size_t i = 0; i < m->m_headDims.size(); ++i)
            for (const auto& row : rows) m->m_head.push_back(row[i]);
    if (!c.tieWordEmbeddings)
        throw DiagnosticError(Diagnostic{"", 0, 0, "the sparse path needs tied embeddings (the compiled GPU's)"});
    for (int i = 0; i < c.numLayers; ++i) {
        std::string p = "layers." + std::to_string(i) + ".";
        Layer l;
        auto sparse = [&](const std::string& name, int64_t rows, int64_t columns, bool byColumns = false) {
            if (std::optional<Entries> e = entries(p + name))
                return Sparse::ofEntries(*e, int(rows), int(columns), byColumns);
            return Sparse::of(tensor(p + name, {rows, columns}), int(rows), int(columns), byColumns);
        };
        l.inputNorm = tensor(p + "input_layernorm.weight", {h});
        l.postNorm = tensor(p + "post_attention_layernorm.weight", {h});
        l.gate = sparse("mlp.gate_proj.weight", in, h);
        l.up = sparse("mlp.up_proj.weight", in, h);
        l.down = sparse("mlp.down_proj.weight", h, in, true);
        l.qkv = sparse("linear_attn.in_proj_qkv.weight", channels, h);
        l.z = sparse("linear_attn.in_proj_z.weight", c.linearValueDim(), h);
        l.b = sparse("linear_attn.in_proj_b.weight", hv, h);
        l.a = sparse("linear_attn.in_proj_a.weight", hv, h);
        l.conv = tensor(p + "linear_attn.conv1d.weight", {channels, 1, c.convKernel});
        l.dtBias = tensor(p + "linear_attn.dt_bias", {hv});
        l.aLog = tensor(p + "linear_attn.A_log", {hv});
        l.linearNorm = tensor(p + "linear_attn.norm.weight", {c.linearValueHeadDim});
        l.outProj = sparse("linear_attn.out_proj.weight", h, c.linearValueDim(), true);
        for (int ch = 0; ch < l.qkv.rows; ++ch) {
            if (!l.qkv.empty(ch)) l.liveChannels.push_back(ch);
            bool past = false;
            for (int64_t k = 0; k + 1 < c.convKernel; ++k) past = past || l.conv[size_t(ch * c.convKernel + k)] != 0;
            l.pastTaps.push_back(past);
        }
        for (int n = 0; n < l.gate.rows; ++n)
            if (!l.gate.empty(n)) l.liveNeurons.push_back(n);
        int64_t dk = c.linearKeyHeadDim, group = hv / c.linearNumKeyHeads;
        for (int64_t head = 0; head < hv; ++head) {
            bool live = false;
            for (int64_t i = 0; i < dk && !live; ++i) {
                int64_t q = head / group * dk + i, k = c.linearKeyDim() + q;
                live = !l.qkv.empty(int(q)) || !l.qkv.empty(int(k));
            }
            if (live) l.liveHeads.push_back(int(head));
        }
        auto rowSize = [](const Sparse& m, int r) { return size_t(m.start[size_t(r) + 1] - m.start[size_t(r)]); };
        l.channelSplit = balancedSplit(l.liveChannels, [&](int ch) { return 1 + rowSize(l.qkv, ch); });
        l.headSplit = balancedSplit(l.liveHeads, [](int) { return size_t(1); });
        l.neuronSplit = balancedSplit(l.liveNeurons, [&](int n) { return 1 + rowSize(l.gate, n) + rowSize(l.up, n); });
        m->m_layers.push_back(std::move(l));
    }
    m->setThreads(configuredThreads());
    return m;
}

void SparseModel::setThreads(int threads) {
    std::lock_guard<std::mutex> lock(m_helperUse);
    if (threads < 2)
        m_helper.reset();
    else if (!m_helper)
        m_helper = std::make_unique<HelperThread>();
}

int SparseModel::threads() const { return m_helper ? 2 : 1; }

size_t SparseModel::nonZeros() const {
    size_t n = 0;
    for (const Layer& l : m_layers)
        for (const Sparse* s : {&l.qkv, &l.z, &l.b, &l.a, &l.outProj, &l.gate, &l.up, &l.down}) n += s->value.size();
    return n;
}

SparseModel::State SparseModel::newState() const {
    const Qwen35Config& c = m_config;
    size_t channels = size_t(2 * c.linearKeyDim() + c.linearValueDim());
    State s;
    for (int i = 0; i < c.numLayers; ++i) {
        s.conv.emplace_back(channels * size_t(c.convKernel - 1), 0.f);
        s.recurrent.emplace_back(size_t(c.linearNumValueHeads * c.linearKeyHeadDim * c.linearValueHeadDim), 0.f);
    }
    return s;
}

std::vector<float> SparseModel::forward(int token, State& state) const { return logits(run(token, state)); }

void SparseModel::feed(int token, State& state) const { run(token, state); }

// The layer's phases over a range of their units (channels, heads, neurons), so that two threads can take
// one range each: every unit's arithmetic is the same whichever thread runs it, so the result is too.
struct SparseModel::LayerPass {
    const Qwen35Config& c;
    const Layer& l;
    const std::vector<float>& normed;
    size_t K, dk, dv, kd, group;  // conv taps; key and value head dims; all keys' width; value heads per key
    LayerTrace* trace = nullptr;  // records the rows each head's query and key address, when given

    // Projection and causal conv with its state (the last K - 1 projected values per channel).
    // A channel whose projection row is empty reads 0 for ever: silu(0) = 0 and its state stays 0.
    // One whose earlier taps are all 0 needs no state: 0 + 0 * past is +0 (past is finite), as the sum
    // with the state would give.
    void channels(size_t begin, size_t end, std::vector<float>& conv, std::vector<float>& qkv) const {
        for (size_t i = begin; i < end; ++i) {
            const int channel = l.liveChannels[i];
            const size_t ch = size_t(channel);
            float now = l.qkv.row(channel, normed.data());
            float out = 0;
            if (l.pastTaps[ch]) {
                float* past = conv.data() + ch * (K - 1);
                for (size_t k = 0; k + 1 < K; ++k) out += l.conv[ch * K + k] * past[k];
                for (size_t k = 0; k + 2 < K; ++k) past[k] = past[k + 1];
                past[K - 2] = now;
            }
            out += l.conv[ch * K + K - 1] * now;
            qkv[ch] = silu(out);
        }
    }

    // The rows a normalised query or key weighs at 1/1000 of its largest weight or more.
    static void addressedRows(const std::vector<float>& weights, std::vector<int>& rows) {
        float largest = 0;
        for (float w : weights) largest = std::max(largest, std::fabs(w));
        rows.clear();
        for (size_t r = 0; r < weights.size(); ++r)
            if (largest > 0 && std::fabs(weights[r]) >= largest / 1000) rows.push_back(int(r));
    }

    struct HeadScratch {
        std::vector<float> qn, kn, kS, delta;
    };

    // The gated delta rule of each head, on the state rows its key and query touch only, and its gated
    // norm into `mixed`.
    void heads(size_t begin, size_t end, const std::vector<float>& qkv, std::vector<float>& S,
               std::vector<float>& mixed, HeadScratch& t) const {
        const float qScale = float(1.0 / std::sqrt(double(dk)));
        auto l2 = [&](const float* vec, float scale, std::vector<float>& out) {
            float sum = 0;
            for (size_t i = 0; i < dk; ++i) sum += vec[i] * vec[i];
            float r = 1.f / std::sqrt(sum + 1e-6f);
            out.assign(vec, vec + dk);
            for (float& e : out) e = e * r * scale;
        };
        t.kS.resize(dv);
        t.delta.resize(dv);
        for (size_t i = begin; i < end; ++i) {
            const size_t head = size_t(l.liveHeads[i]), keyHead = head / group;
            const float* v = qkv.data() + 2 * kd + head * dv;
            l2(qkv.data() + keyHead * dk, qScale, t.qn);
            l2(qkv.data() + kd + keyHead * dk, 1.f, t.kn);
            if (trace) {
                addressedRows(t.qn, trace->rowsRead[head]);
                addressedRows(t.kn, trace->rowsWritten[head]);
            }
            float beta = sigmoid(l.b.row(int(head), normed.data()));
            float g = -std::exp(l.aLog[head]) * softplus(l.a.row(int(head), normed.data()) + l.dtBias[head]);
            float* Sh = S.data() + head * dk * dv;
            float decay = std::exp(g);
            if (decay != 1.f)
                for (size_t e = 0; e < dk * dv; ++e) Sh[e] *= decay;
            std::fill(t.kS.begin(), t.kS.end(), 0.f);
            bool writes = false;
            for (size_t r = 0; r < dk; ++r)
                if (t.kn[r] != 0) {
                    writes = true;
                    for (size_t j = 0; j < dv; ++j) t.kS[j] += t.kn[r] * Sh[r * dv + j];
                }
            if (writes) {
                for (size_t j = 0; j < dv; ++j) t.delta[j] = beta * (v[j] - t.kS[j]);
                for (size_t r = 0; r < dk; ++r)
                    if (t.kn[r] != 0)
                        for (size_t j = 0; j < dv; ++j) Sh[r * dv + j] += t.kn[r] * t.delta[j];
            }
            float* o = mixed.data() + head * dv;
            for (size_t r = 0; r < dk; ++r)
                if (t.qn[r] != 0)
                    for (size_t j = 0; j < dv; ++j) o[j] += t.qn[r] * Sh[r * dv + j];
            float sum = 0;
            for (size_t j = 0; j < dv; ++j) sum += o[j] * o[j];
            float scale = 1.f / std::sqrt(sum / float(dv) + c.rmsNormEps);
            for (size_t j = 0; j < dv; ++j) {
                if (o[j] == 0) continue;
                float z = l.z.empty(int(head * dv + j)) ? 0.f : l.z.row(int(head * dv + j), normed.data());
                o[j] = l.linearNorm[j] * (o[j] * scale) * silu(z);
            }
        }
    }

    // Each live neuron's SwiGLU output (0 without the up row when the gate is 0); the caller scatters them.
    void neurons(size_t begin, size_t end, std::vector<float>& out) const {
        for (size_t i = begin; i < end; ++i) {
            const int n = l.liveNeurons[i];
            float g = silu(l.gate.row(n, normed.data()));
            out[i] = g == 0 ? 0.f : g * l.up.row(n, normed.data());
        }
    }
};

std::vector<LayerTrace> SparseModel::trace(int token, State& state, int* next) const {
    std::vector<LayerTrace> layers(m_layers.size());
    for (LayerTrace& t : layers) {
        t.rowsRead.resize(size_t(m_config.linearNumValueHeads));
        t.rowsWritten.resize(size_t(m_config.linearNumValueHeads));
    }
    std::vector<float> x = run(token, state, &layers);
    if (next) *next = greedyAfter(x);
    return layers;
}

std::vector<float> SparseModel::run(int token, State& state, std::vector<LayerTrace>* trace) const {
    const Qwen35Config& c = m_config;
    if (token < 0 || token >= c.vocabSize)
        throw DiagnosticError(Diagnostic{"", 0, 0, "token " + std::to_string(token) + " is outside the vocabulary"});
    size_t hv = size_t(c.linearNumValueHeads), dv = size_t(c.linearValueHeadDim), kd = size_t(c.linearKeyDim());
    std::vector<float> x = m_embed.row(size_t(token));
    std::vector<float> normed, qkv(2 * kd + hv * dv), mixed(hv * dv), neuronOut;
    LayerPass::HeadScratch scratch[2];
    // The helper serves one run at a time; a run that finds it busy goes alone.
    std::unique_lock<std::mutex> helperLock(m_helperUse, std::try_to_lock);
    HelperThread* helper = helperLock.owns_lock() ? m_helper.get() : nullptr;
    auto inTwo = [&](size_t split, size_t count, const std::function<void(size_t, size_t, int)>& work) {
        if (!helper) return work(0, count, 0);
        helper->split([&](int part) { part == 0 ? work(0, split, 0) : work(split, count, 1); });
    };
    for (size_t li = 0; li < m_layers.size(); ++li) {
        const Layer& l = m_layers[li];
        rmsNorm(x, l.inputNorm, c.rmsNormEps, normed);
        const size_t dk = size_t(c.linearKeyHeadDim), group = hv / size_t(c.linearNumKeyHeads);
        LayerTrace* record = trace ? &(*trace)[li] : nullptr;
        LayerPass pass{c, l, normed, size_t(c.convKernel), dk, dv, kd, group, record};
        std::fill(qkv.begin(), qkv.end(), 0.f);
        inTwo(l.channelSplit, l.liveChannels.size(),
              [&](size_t b, size_t e, int) { pass.channels(b, e, state.conv[li], qkv); });
        std::fill(mixed.begin(), mixed.end(), 0.f);
        inTwo(l.headSplit, l.liveHeads.size(),
              [&](size_t b, size_t e, int part) { pass.heads(b, e, qkv, state.recurrent[li], mixed, scratch[part]); });
        // Only live heads wrote into `mixed` (ascending, as j is): the same scatters as a scan of all of it.
        for (int head : l.liveHeads)
            for (size_t j = size_t(head) * dv; j < size_t(head + 1) * dv; ++j)
                if (mixed[j] != 0) l.outProj.scatter(int(j), mixed[j], x.data());
        if (record) record->afterMixer = x;
        // The MLP through its non-zero neurons, scattered in neuron order.
        rmsNorm(x, l.postNorm, c.rmsNormEps, normed);
        neuronOut.assign(l.liveNeurons.size(), 0.f);
        inTwo(l.neuronSplit, l.liveNeurons.size(), [&](size_t b, size_t e, int) { pass.neurons(b, e, neuronOut); });
        for (size_t i = 0; i < neuronOut.size(); ++i)
            if (neuronOut[i] != 0) l.down.scatter(l.liveNeurons[i], neuronOut[i], x.data());
        if (record) record->afterLayer = x;
    }
    ++state.position;
    return x;
}

std::vector<float> SparseModel::headInput(const std::vector<float>& x) const {
    std::vector<float> normed;
    rmsNorm(x, m_finalNorm, m_config.rmsNormEps, normed);
    std::vector<float> y;
    for (size_t d : m_headDims) y.push_back(normed[d]);
    return y;
}

std::vector<float> SparseModel::distinctLogits(const std::vector<float>& x) const {
    std::vector<float> y = headInput(x);
    if (m_integerHead) return m_integerHead->logits(y);
    std::vector<float> distinct(m_firstOf.size(), 0.f);
    headProducts(m_head.data(), y, distinct);
    return distinct;
}

std::vector<float> SparseModel::logits(const std::vector<float>& x) const {
    std::vector<float> distinct = distinctLogits(x), logits(size_t(m_config.vocabSize));
    for (size_t t = 0; t < logits.size(); ++t) logits[t] = distinct[size_t(m_headRow[t])];
    return logits;
}

int SparseModel::greedy(int token, State& state) const { return greedyAfter(run(token, state)); }

int SparseModel::greedyAfter(const std::vector<float>& x) const {
    // Distinct rows come in the order of their first tokens, so the first largest row's first token is the
    // first largest token.
    size_t best = 0;
    if (m_integerHead) {
        best = m_integerHead->argmax(headInput(x));
    } else {
        std::vector<float> distinct = distinctLogits(x);
        best = size_t(std::max_element(distinct.begin(), distinct.end()) - distinct.begin());
    }
    return int(m_firstOf[best]);
}

}  // namespace qgpu
