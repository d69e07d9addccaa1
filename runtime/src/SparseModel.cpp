#include "qgpu/runtime/SparseModel.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

#include "HelperThread.h"
#include "RowBlocks.h"
#include "SparseKernels.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Environment.h"

namespace qgpu {

using sparse::nonZeroIndices;
using sparse::rmsNorm;
using sparse::sigmoid;
using sparse::silu;
using sparse::siluAll;
using sparse::softplus;

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
    // Four partial sums, entry j of the row into sum j % 4, so that the gathers overlap instead of waiting on
    // one chain of adds; RowBlocks sums the same way. (The circuit's sums are exact, so their order does not
    // matter; on other weights this is one more float rounding order.)
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
        if (i < end) s0 += v[i] * x[c[i]];
        if (i + 1 < end) s1 += v[i + 1] * x[c[i + 1]];
        if (i + 2 < end) s2 += v[i + 2] * x[c[i + 2]];
        return (s0 + s1) + (s2 + s3);
    }
    RowBlocks blocks(const std::vector<int>& rows, int zeroColumn, RowBlocks::Order order) const {
        return RowBlocks::of(start, column, value, rows, zeroColumn, order);
    }
    bool empty(int r) const { return start[size_t(r)] == start[size_t(r) + 1]; }
};

// 1 + w for each weight of a zero-centred RMS norm: its gains.
std::vector<float> onePlus(std::vector<float> w) {
    for (float& v : w) v = 1.f + v;
    return w;
}

// logits += head^T y, head dim-major; each logit summed in dim order. No aliasing: the compiler vectorises it.
void headProducts(const float* __restrict column, const std::vector<float>& y, std::vector<float>& logits) {
    float* __restrict out = logits.data();
    for (size_t i = 0; i < y.size(); ++i, column += logits.size()) {
        const float weight = y[i];
        for (size_t t = 0; t < logits.size(); ++t) out[t] += column[t] * weight;
    }
}

}  // namespace

struct SparseModel::Layer {
    std::vector<float> inputGain, postGain;  // 1 + each RMS norm's weight
    std::vector<float> conv, dtBias, aLog, linearNorm;
    Sparse qkv, z, b, a, gate, up;
    Sparse outProj, down;             // by columns
    RowBlocks qkvBlocks, gateBlocks;  // the live channels' and neurons' rows of qkv and gate
    std::vector<float> laneTap;       // per qkvBlocks lane: its channel's conv tap on the current token (0 unused)
    std::vector<uint8_t> blockPast;   // per qkvBlocks block: a channel of it reads earlier tokens
    std::vector<bool> pastTaps;       // per channel: its conv reads earlier tokens (a non-zero earlier tap)
    // Heads whose query or key has a live channel. The others never write (their key is 0) and read 0,
    // so their state stays 0 and their output is 0: they are skipped.
    std::vector<int> liveHeads;
    std::vector<float> constantDecay;  // per value head whose a row is empty: its decay, the same every token
    // Where two threads divide the live heads: half each. (The blocks say where they divide theirs.)
    size_t headSplit = 0;
};

namespace {
// A head's state decay exp(g), g = -exp(A_log) * softplus(a + dt_bias), for the a projection's value `a`.
float headDecay(const SparseModel::Layer& l, size_t head, float a) {
    return std::exp(-std::exp(l.aLog[head]) * softplus(a + l.dtBias[head]));
}

// The token embeddings into `embed`: the given rows (moved out of `embeddings`), else embed_tokens.weight's.
void readEmbeddings(const Qwen35Config& c, const TensorSource& tensor, std::optional<BaseRows>& embeddings,
                    BaseRows& embed) {
    int64_t h = c.hiddenSize;
    if (embeddings) {
        if (int64_t(embeddings->size()) != c.vocabSize || int64_t(embeddings->width()) != h)
            throw std::invalid_argument("the token embeddings are not [vocab_size, hidden_size]");
        embed = std::move(*embeddings);
    } else {
        std::vector<float> dense = tensor("embed_tokens.weight", {c.vocabSize, h});
        for (int64_t t = 0; t < c.vocabSize; ++t)
            embed.addRow(std::vector<float>(dense.begin() + t * h, dense.begin() + (t + 1) * h));
    }
}

// The dims of [0, h) whose final gain is not 0 into `headDims`, ascending; returns each dim's index there, or -1.
std::vector<int> keptDims(const std::vector<float>& finalGain, int64_t h, std::vector<size_t>& headDims) {
    std::vector<int> headIndex(size_t(h), -1);  // a dim's place among them
    for (int64_t d = 0; d < h; ++d)
        if (finalGain[size_t(d)] != 0) {
            headIndex[size_t(d)] = int(headDims.size());
            headDims.push_back(size_t(d));
        }
    return headIndex;
}

// Per token its distinct head row into `headRow`, and per distinct row its first token into `firstOf`.
void distinctHeadRows(const BaseRows& embed, int64_t vocabSize, const std::vector<int>& headIndex,
                      std::vector<size_t>& firstOf, std::vector<int>& headRow) {
    // Tokens whose rows agree on those dims (bit for bit) share one logit: the head holds each distinct row
    // once (the compiled GPU's loading tokens all have the same, empty code). A row is keyed by where it
    // differs from the base there.
    std::unordered_map<std::string, int> distinct;
    for (int64_t t = 0; t < vocabSize; ++t) {
        std::string key;
        for (const auto& [d, value] : embed.changes(size_t(t))) {
            float base = embed.base()[size_t(d)];
            if (headIndex[size_t(d)] < 0 || std::memcmp(&value, &base, sizeof(float)) == 0) continue;
            key.append(reinterpret_cast<const char*>(&d), sizeof(int));
            key.append(reinterpret_cast<const char*>(&value), sizeof(float));
        }
        auto [it, added] = distinct.emplace(std::move(key), int(firstOf.size()));
        if (added) firstOf.push_back(size_t(t));
        headRow.push_back(it->second);
    }
}

// The distinct rows (those of the tokens in `firstOf`) on the head's dims.
std::vector<std::vector<float>> headRows(const BaseRows& embed, const std::vector<size_t>& firstOf,
                                         const std::vector<size_t>& headDims, const std::vector<int>& headIndex) {
    std::vector<std::vector<float>> rows;  // the distinct rows on the head's dims
    for (size_t t : firstOf) {
        std::vector<float>& row = rows.emplace_back();
        for (size_t d : headDims) row.push_back(embed.base()[d]);
        for (const auto& [d, value] : embed.changes(t))
            if (headIndex[size_t(d)] >= 0) row[size_t(headIndex[size_t(d)])] = value;
    }
    return rows;
}

// The weights of the layer whose tensor names start with `p`: each matrix from its non-zero entries when
// `entries` has them, else from `tensor`.
void readLayerWeights(SparseModel::Layer& l, const Qwen35Config& c, const TensorSource& tensor,
                      const SparseModel::EntrySource& entries, const std::string& p) {
    int64_t h = c.hiddenSize, in = c.intermediateSize, hv = c.linearNumValueHeads;
    int64_t channels = 2 * c.linearKeyDim() + c.linearValueDim();
    auto sparse = [&](const std::string& name, int64_t rows, int64_t columns, bool byColumns = false) {
        if (std::optional<SparseModel::Entries> e = entries(p + name))
            return Sparse::ofEntries(*e, int(rows), int(columns), byColumns);
        return Sparse::of(tensor(p + name, {rows, columns}), int(rows), int(columns), byColumns);
    };
    l.inputGain = onePlus(tensor(p + "input_layernorm.weight", {h}));
    l.postGain = onePlus(tensor(p + "post_attention_layernorm.weight", {h}));
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
}

// The qkv rows with a non-zero weight into `liveChannels`, and per channel whether its conv reads earlier
// tokens into l.pastTaps.
void scanChannels(SparseModel::Layer& l, const Qwen35Config& c, std::vector<int>& liveChannels) {
    for (int ch = 0; ch < l.qkv.rows; ++ch) {
        if (!l.qkv.empty(ch)) liveChannels.push_back(ch);
        bool past = false;
        for (int64_t k = 0; k + 1 < c.convKernel; ++k) past = past || l.conv[size_t(ch * c.convKernel + k)] != 0;
        l.pastTaps.push_back(past);
    }
}

// The value heads whose query or key has a live channel into l.liveHeads, ascending.
void findLiveHeads(SparseModel::Layer& l, const Qwen35Config& c) {
    int64_t hv = c.linearNumValueHeads;
    int64_t dk = c.linearKeyHeadDim, group = hv / c.linearNumKeyHeads;
    for (int64_t head = 0; head < hv; ++head) {
        bool live = false;
        for (int64_t i = 0; i < dk && !live; ++i) {
            int64_t q = head / group * dk + i, k = c.linearKeyDim() + q;
            live = !l.qkv.empty(int(q)) || !l.qkv.empty(int(k));
        }
        if (live) l.liveHeads.push_back(int(head));
    }
}

// l.laneTap and l.blockPast from the qkv blocks' lanes.
void setLaneTaps(SparseModel::Layer& l, const Qwen35Config& c) {
    const size_t K = size_t(c.convKernel);
    for (size_t b = 0; b < l.qkvBlocks.blocks(); ++b) {
        bool past = false;
        for (size_t lane = b * RowBlocks::kLanes; lane < (b + 1) * RowBlocks::kLanes; ++lane) {
            const int ch = l.qkvBlocks.lanes()[lane];
            l.laneTap.push_back(ch >= 0 ? l.conv[size_t(ch) * K + K - 1] : 0.f);
            past = past || (ch >= 0 && l.pastTaps[size_t(ch)]);
        }
        l.blockPast.push_back(past);
    }
}

// Layer i: its weights, its live channels, heads and neurons, and what a token's run reads of them.
SparseModel::Layer layerFrom(const Qwen35Config& c, const TensorSource& tensor, const SparseModel::EntrySource& entries,
                             int i) {
    int64_t h = c.hiddenSize, hv = c.linearNumValueHeads;
    std::string p = "layers." + std::to_string(i) + ".";
    SparseModel::Layer l;
    readLayerWeights(l, c, tensor, entries, p);
    std::vector<int> liveChannels, liveNeurons;  // qkv rows and gate rows with a non-zero weight
    scanChannels(l, c, liveChannels);
    for (int n = 0; n < l.gate.rows; ++n)
        if (!l.gate.empty(n)) liveNeurons.push_back(n);
    findLiveHeads(l, c);
    // Channels in their order, so that a block's results land side by side; neurons by length (their
    // results are few and go out as a list).
    l.qkvBlocks = l.qkv.blocks(liveChannels, int(h), RowBlocks::Order::AsGiven);
    l.gateBlocks = l.gate.blocks(liveNeurons, int(h), RowBlocks::Order::ByLength);
    setLaneTaps(l, c);
    l.headSplit = l.liveHeads.size() / 2;
    for (int64_t head = 0; head < hv; ++head)  // an empty row's sum is +0, as Sparse::row gives it
        l.constantDecay.push_back(headDecay(l, size_t(head), 0.f));
    return l;
}
}  // namespace

SparseModel::~SparseModel() = default;

std::unique_ptr<SparseModel> SparseModel::fromTensors(const Qwen35Config& c, const TensorSource& tensor) {
    return fromTensors(c, tensor, [](const std::string&) { return std::nullopt; });
}

std::unique_ptr<SparseModel> SparseModel::fromTensors(const Qwen35Config& c, const TensorSource& tensor,
                                                      const EntrySource& entries, std::optional<BaseRows> embeddings) {
    for (LayerType t : c.layerTypes)
        if (t != LayerType::LinearAttention)
            throw DiagnosticError(
                Diagnostic{"", 0, 0, "the sparse path runs Gated DeltaNet layers only; use the dense path"});
    std::unique_ptr<SparseModel> m(new SparseModel());
    m->m_config = c;
    int64_t h = c.hiddenSize;
    readEmbeddings(c, tensor, embeddings, m->m_embed);
    const BaseRows& embed = m->m_embed;
    m->m_finalGain = onePlus(tensor("norm.weight", {h}));
    // The LM head reads only dims the final norm keeps (1 + w != 0): a contiguous copy of those columns.
    std::vector<int> headIndex = keptDims(m->m_finalGain, h, m->m_headDims);
    distinctHeadRows(embed, c.vocabSize, headIndex, m->m_firstOf, m->m_headRow);
    std::vector<std::vector<float>> rows = headRows(embed, m->m_firstOf, m->m_headDims, headIndex);
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
    for (int i = 0; i < c.numLayers; ++i) m->m_layers.push_back(layerFrom(c, tensor, entries, i));
    m->setThreads(environmentInteger("QGPU_SPARSE_THREADS", 1, 1, 2));
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

std::vector<std::vector<size_t>> SparseModel::convStateUsed() const {
    const size_t taps = size_t(m_config.convKernel - 1);
    std::vector<std::vector<size_t>> out;
    for (const Layer& l : m_layers) {
        out.emplace_back();
        for (size_t ch = 0; ch < l.pastTaps.size(); ++ch)
            for (size_t k = 0; l.pastTaps[ch] && k < taps; ++k) out.back().push_back(ch * taps + k);
    }
    return out;
}

SparseModel::State SparseModel::newState() const {
    const Qwen35Config& c = m_config;
    size_t channels = size_t(2 * c.linearKeyDim() + c.linearValueDim());
    State s;
    for (int i = 0; i < c.numLayers; ++i) {
        s.conv.emplace_back(channels * size_t(c.convKernel - 1), 0.f);
        s.recurrent.emplace_back(size_t(c.linearNumValueHeads * c.linearKeyHeadDim * c.linearValueHeadDim));
    }
    return s;
}

std::vector<float> SparseModel::forward(int token, State& state) const { return logits(run(token, state)); }

void SparseModel::feed(int token, State& state) const { run(token, state); }

// The layer's phases over a range of their units (blocks of channels, heads, blocks of neurons), so that two
// threads can take one range each: every unit's arithmetic is the same whichever thread runs it, so the
// result is too.
struct SparseModel::LayerPass {
    const Qwen35Config& c;
    const Layer& l;
    const std::vector<float>& normed;
    size_t K, dk, dv, kd, group;  // conv taps; key and value head dims; all keys' width; value heads per key
    LayerTrace* trace = nullptr;  // records the rows each head's query and key address, when given

    // Per part of a split (the first or the second, whichever thread runs it): buffers every token reuses.
    struct Scratch {
        std::vector<float> now, out;  // a block run's sums, and what becomes of them
        std::vector<int> rows;
        std::vector<uint64_t> fired;  // a bit per neuron: its gate is not 0, and it has written its output
        std::vector<float> qn, kn, kS, delta;
        std::vector<int> qRows, kRows, oRows;  // where qn, kn and a head's output are not zero, ascending
        std::vector<int> rowsWritten;          // head * dk + row, when the state logs them
    };

    // Projection and causal conv with its state (the last K - 1 projected values per channel), over the live
    // channels of qkv's blocks [begin, end).
    // A channel whose projection row is empty reads 0 for ever: silu(0) = 0 and its state stays 0.
    // One whose earlier taps are all 0 needs no state: 0 + 0 * past is +0 (past is finite), as the sum
    // with the state would give.
    // Each step is one pass over the blocks' lanes: the sums, the taps, silu, the stores.
    void channels(size_t begin, size_t end, std::vector<float>& conv, std::vector<float>& qkv, Scratch& t) const {
        constexpr size_t L = RowBlocks::kLanes;
        const size_t n = (end - begin) * L;
        t.now.resize(n);
        t.out.resize(n);
        l.qkvBlocks.sums(begin, end, normed.data(), t.now.data());
        const float* tap = l.laneTap.data() + begin * L;
        for (size_t i = 0; i < n; ++i) t.out[i] = 0.f + tap[i] * t.now[i];
        const int* lanes = l.qkvBlocks.lanes().data() + begin * L;
        for (size_t b = begin; b < end; ++b)
            if (l.blockPast[b])
                for (size_t i = (b - begin) * L; i < (b - begin + 1) * L; ++i)
                    if (lanes[i] >= 0 && l.pastTaps[size_t(lanes[i])])
                        t.out[i] = withPast(size_t(lanes[i]), t.now[i], conv);
        siluAll(t.out.data(), n);
        for (size_t b = begin, i = 0; b < end; ++b, i += L) {
            if (l.qkvBlocks.consecutive(b)) {
                std::copy_n(t.out.data() + i, L, qkv.data() + lanes[i]);
                continue;
            }
            for (size_t lane = i; lane < i + L; ++lane)
                if (lanes[lane] >= 0) qkv[size_t(lanes[lane])] = t.out[lane];
        }
    }

    // A channel's conv output with its earlier taps, shifting `now` into its state.
    float withPast(size_t ch, float now, std::vector<float>& conv) const {
        float* past = conv.data() + ch * (K - 1);
        float out = 0;
        for (size_t k = 0; k + 1 < K; ++k) out += l.conv[ch * K + k] * past[k];
        for (size_t k = 0; k + 2 < K; ++k) past[k] = past[k + 1];
        past[K - 2] = now;
        return out + l.conv[ch * K + K - 1] * now;
    }

    // The rows a normalised query or key weighs at 1/1000 of its largest weight or more.
    static void addressedRows(const std::vector<float>& weights, std::vector<int>& rows) {
        float largest = 0;
        for (float w : weights) largest = std::max(largest, std::fabs(w));
        rows.clear();
        for (size_t r = 0; r < weights.size(); ++r)
            if (largest > 0 && std::fabs(weights[r]) >= largest / 1000) rows.push_back(int(r));
    }

    // The gated delta rule of each head, on the state rows its key and query touch only, and its gated
    // norm into `mixed`.
    void heads(size_t begin, size_t end, const std::vector<float>& qkv, StateRows& S, std::vector<float>& mixed,
               Scratch& t, bool logRows) const {
        const float qScale = float(1.0 / std::sqrt(double(dk)));
        // The normalised vector and the rows where it is not zero. The sum of squares and every later loop over
        // the rows skip the zeros (a query or key is one-hot on compiled circuits): adding +0 to a sum that
        // starts at +0 changes nothing, and a zero row weighs nothing.
        auto l2 = [&](const float* vec, float scale, std::vector<float>& out, std::vector<int>& rows) {
            size_t count = nonZeroIndices(vec, dk, rows.data());
            float sum = 0;
            for (size_t n = 0; n < count; ++n) sum += vec[rows[n]] * vec[rows[n]];
            float r = 1.f / std::sqrt(sum + 1e-6f);
            out.resize(dk);
            if (trace)  // the whole vector: the trace records the rows it weighs
                for (size_t i = 0; i < dk; ++i) out[i] = vec[i] * r * scale;
            else  // the rows the later loops read; the others keep stale values nothing reads
                for (size_t n = 0; n < count; ++n) out[size_t(rows[n])] = vec[rows[n]] * r * scale;
            size_t kept = 0;  // a non-zero element that rounds to zero once scaled weighs nothing either
            for (size_t n = 0; n < count; ++n)
                if (out[size_t(rows[n])] != 0) rows[kept++] = rows[n];
            return kept;
        };
        t.kS.resize(dv);
        t.delta.resize(dv);
        t.qRows.resize(dk);
        t.kRows.resize(dk);
        t.oRows.resize(dv);
        for (size_t i = begin; i < end; ++i) {
            const size_t head = size_t(l.liveHeads[i]), keyHead = head / group;
            const float* v = qkv.data() + 2 * kd + head * dv;
            const size_t qCount = l2(qkv.data() + keyHead * dk, qScale, t.qn, t.qRows);
            const size_t kCount = l2(qkv.data() + kd + keyHead * dk, 1.f, t.kn, t.kRows);
            if (trace) {
                addressedRows(t.qn, trace->rowsRead[head]);
                addressedRows(t.kn, trace->rowsWritten[head]);
            }
            float beta = sigmoid(l.b.row(int(head), normed.data()));
            float* Sh = S.data() + head * dk * dv;
            float decay =
                l.a.empty(int(head)) ? l.constantDecay[head] : headDecay(l, head, l.a.row(int(head), normed.data()));
            if (decay != 1.f) {
                for (size_t e = 0; e < dk * dv; ++e) Sh[e] *= decay;
                for (size_t r = 0; logRows && r < dk; ++r) t.rowsWritten.push_back(int(head * dk + r));
            }
            std::fill(t.kS.begin(), t.kS.end(), 0.f);
            for (size_t n = 0; n < kCount; ++n) {
                const size_t r = size_t(t.kRows[n]);
                for (size_t j = 0; j < dv; ++j) t.kS[j] += t.kn[r] * Sh[r * dv + j];
            }
            if (kCount > 0) {
                for (size_t j = 0; j < dv; ++j) t.delta[j] = beta * (v[j] - t.kS[j]);
                for (size_t n = 0; n < kCount; ++n) {
                    const size_t r = size_t(t.kRows[n]);
                    for (size_t j = 0; j < dv; ++j) Sh[r * dv + j] += t.kn[r] * t.delta[j];
                    if (logRows) t.rowsWritten.push_back(int(head * dk + r));
                }
            }
            float* o = mixed.data() + head * dv;
            for (size_t n = 0; n < qCount; ++n) {
                const size_t r = size_t(t.qRows[n]);
                for (size_t j = 0; j < dv; ++j) o[j] += t.qn[r] * Sh[r * dv + j];
            }
            const size_t written = nonZeroIndices(o, dv, t.oRows.data());
            float sum = 0;
            for (size_t n = 0; n < written; ++n) sum += o[t.oRows[n]] * o[t.oRows[n]];
            float scale = 1.f / std::sqrt(sum / float(dv) + c.rmsNormEps);
            for (size_t n = 0; n < written; ++n) {
                const size_t j = size_t(t.oRows[n]);
                float z = l.z.empty(int(head * dv + j)) ? 0.f : l.z.row(int(head * dv + j), normed.data());
                o[j] = l.linearNorm[j] * (o[j] * scale) * silu(z);
            }
        }
    }

    // The SwiGLU outputs of the live neurons of gate's blocks [begin, end) that are not 0 into out[neuron],
    // marked in t.fired (a neuron whose gate is 0 gives 0 without the up row); the caller scatters them.
    void neurons(size_t begin, size_t end, std::vector<float>& out, Scratch& t) const {
        const size_t n = (end - begin) * RowBlocks::kLanes;
        t.out.resize(n);
        t.rows.resize(n);
        l.gateBlocks.sums(begin, end, normed.data(), t.out.data());
        siluAll(t.out.data(), n);
        const int* lanes = l.gateBlocks.lanes().data() + begin * RowBlocks::kLanes;
        const size_t count = nonZeroIndices(t.out.data(), n, t.rows.data());
        t.fired.assign(out.size() / 64 + 1, 0);
        for (size_t i = 0; i < count; ++i) {
            if (lanes[t.rows[i]] < 0) continue;  // an unused lane (its sum is +0 unless x holds inf or NaN)
            const size_t neuron = size_t(lanes[t.rows[i]]);
            const float output = t.out[size_t(t.rows[i])] * l.up.row(int(neuron), normed.data());
            if (output == 0) continue;  // scattering a 0 could turn a -0 of the residual into +0
            out[neuron] = output;
            t.fired[neuron / 64] |= uint64_t(1) << (neuron % 64);
        }
    }

    // x += out_proj mixed, scattering the live heads' non-zero outputs; t is the first part's scratch.
    void outProjection(const std::vector<float>& mixed, std::vector<float>& x, Scratch& t) const {
        // Only live heads wrote into `mixed` (ascending, as j is): the same scatters as a scan of all of it.
        for (int head : l.liveHeads) {
            std::vector<int>& written = t.oRows;  // sized by heads()
            const size_t first = size_t(head) * dv, count = nonZeroIndices(mixed.data() + first, dv, written.data());
            for (size_t n = 0; n < count; ++n) {
                const size_t j = first + size_t(written[n]);
                l.outProj.scatter(int(j), mixed[j], x.data());
            }
        }
    }

    // x += down neuronOut over the neurons either part of neurons() fired, zeroing their outputs.
    void scatterDown(const Scratch& first, const Scratch& second, std::vector<float>& neuronOut,
                     std::vector<float>& x) const {
        // The fired neurons in neuron order, as a scan of them all would scatter them; neuronOut is all 0 again
        // after.
        for (size_t w = 0; w < first.fired.size(); ++w)
            for (uint64_t bits = first.fired[w] | second.fired[w]; bits; bits &= bits - 1) {
                const size_t neuron = w * 64 + size_t(std::countr_zero(bits));
                l.down.scatter(int(neuron), neuronOut[neuron], x.data());
                neuronOut[neuron] = 0;
            }
    }
};

namespace {
// A run's clock: with a profile, each lap adds the time since the last (or since the start) to a layer's phase.
class PhaseClock {
public:
    PhaseClock(SparseModel::Profile* profile, size_t layers) : m_profile(profile) {
        if (!m_profile) return;
        m_profile->layers.resize(layers);
        ++m_profile->tokens;
        m_clock = std::chrono::steady_clock::now();
    }
    void lap(size_t layer, SparseModel::Profile::Phase phase) {  // the time since the last lap goes to `phase`
        if (!m_profile) return;
        auto now = std::chrono::steady_clock::now();
        m_profile->layers[layer][phase] += std::chrono::duration<double>(now - m_clock).count();
        m_clock = now;
    }

private:
    SparseModel::Profile* m_profile;
    std::chrono::steady_clock::time_point m_clock;
};
}  // namespace

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
    // Buffers kept from one token to the next (per calling thread), so that a token allocates nothing.
    struct Buffers {
        std::vector<float> normed, qkv, mixed, neuronOut;
        LayerPass::Scratch scratch[2];
    };
    static thread_local Buffers buffers;
    auto& [normed, qkv, mixed, neuronOut, scratch] = buffers;
    qkv.resize(2 * kd + hv * dv);
    mixed.resize(hv * dv);
    neuronOut.assign(size_t(c.intermediateSize), 0.f);
    // The helper serves one run at a time; a run that finds it busy goes alone.
    std::unique_lock<std::mutex> helperLock(m_helperUse, std::try_to_lock);
    HelperThread* helper = helperLock.owns_lock() ? m_helper.get() : nullptr;
    auto inTwo = [&](size_t split, size_t count, const std::function<void(size_t, size_t, int)>& work) {
        if (!helper) return work(0, count, 0);
        helper->split([&](int part) { part == 0 ? work(0, split, 0) : work(split, count, 1); });
    };
    PhaseClock clock(m_profile, m_layers.size());
    for (size_t li = 0; li < m_layers.size(); ++li) {
        const Layer& l = m_layers[li];
        rmsNorm(x, l.inputGain, c.rmsNormEps, RowBlocks::kLanes, normed);
        clock.lap(li, Profile::InputNorm);
        const size_t dk = size_t(c.linearKeyHeadDim), group = hv / size_t(c.linearNumKeyHeads);
        LayerTrace* record = trace ? &(*trace)[li] : nullptr;
        LayerPass pass{c, l, normed, size_t(c.convKernel), dk, dv, kd, group, record};
        std::fill(qkv.begin(), qkv.end(), 0.f);
        inTwo(l.qkvBlocks.halfway(), l.qkvBlocks.blocks(),
              [&](size_t b, size_t e, int part) { pass.channels(b, e, state.conv[li], qkv, scratch[part]); });
        clock.lap(li, Profile::Channels);
        std::fill(mixed.begin(), mixed.end(), 0.f);
        for (LayerPass::Scratch& part : scratch) part.rowsWritten.clear();
        inTwo(l.headSplit, l.liveHeads.size(), [&](size_t b, size_t e, int part) {
            pass.heads(b, e, qkv, state.recurrent[li], mixed, scratch[part], state.logRows);
        });
        for (int part = 0; state.logRows && part < 2; ++part)
            for (int row : scratch[part].rowsWritten) state.rowsWritten.push_back({int(li), row});
        clock.lap(li, Profile::Heads);
        pass.outProjection(mixed, x, scratch[0]);
        clock.lap(li, Profile::OutProjection);
        if (record) record->afterMixer = x;
        // The MLP through its non-zero neurons, scattered in neuron order.
        rmsNorm(x, l.postGain, c.rmsNormEps, RowBlocks::kLanes, normed);
        clock.lap(li, Profile::PostNorm);
        scratch[1].fired.assign(neuronOut.size() / 64 + 1, 0);
        inTwo(l.gateBlocks.halfway(), l.gateBlocks.blocks(),
              [&](size_t b, size_t e, int part) { pass.neurons(b, e, neuronOut, scratch[part]); });
        clock.lap(li, Profile::Neurons);
        pass.scatterDown(scratch[0], scratch[1], neuronOut, x);
        clock.lap(li, Profile::Down);
        if (record) record->afterLayer = x;
    }
    ++state.position;
    return x;
}

std::vector<float> SparseModel::headInput(const std::vector<float>& x) const {
    std::vector<float> normed;
    rmsNorm(x, m_finalGain, m_config.rmsNormEps, 0, normed);
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

int SparseModel::greedy(int token, State& state) const {
    std::vector<float> x = run(token, state);
    if (!m_profile) return greedyAfter(x);
    auto start = std::chrono::steady_clock::now();
    int next = greedyAfter(x);
    m_profile->head += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ++m_profile->headTokens;
    return next;
}

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
