#include "qgpu/compiler/circuit/Circuit.h"

#include <cmath>
#include <stdexcept>

namespace qgpu::circuit {

Circuit::Circuit(Geometry geometry) : m_geometry(geometry) {}

int Circuit::addFeature(const std::string& name) {
    // Keep room for the ballast: dims whose squares fill the energy up to kMeanSquare * hidden.
    if (m_nextDim + 4 > m_geometry.hiddenSize) throw std::length_error("the residual has no room for feature " + name);
    m_features[name] = m_nextDim;
    return m_nextDim++;
}

int Circuit::addReadSlot(const std::string& name) {
    int first = addFeature(name);
    m_initial[first] = kReadHigh;
    m_initial[addFeature(name + ".pair")] = kReadLow;
    return first;
}

int Circuit::feature(const std::string& name) const {
    auto it = m_features.find(name);
    return it == m_features.end() ? -1 : it->second;
}

int Circuit::addLayer() {
    m_layers.emplace_back();
    return int(m_layers.size() - 1);
}

// Two neurons give K * [b >= 0] * up, with up = the constant feature (1):
//   silu(K (b + 1)) * 1 - silu(K b) * 1.
// b = gate . x + constant is an integer on circuit tokens, so both silus are exact (identity or -0).
void Circuit::addNeuronPair(int layer, const std::vector<Term>& gate, float constant, const std::vector<Term>& down) {
    Neuron hi, lo;
    for (const Term& t : gate) {
        hi.gate.push_back({t.dim, kStep * t.weight});
        lo.gate.push_back({t.dim, kStep * t.weight});
    }
    hi.gate.push_back({constantDim(), kStep * (constant + 1)});
    lo.gate.push_back({constantDim(), kStep * constant});
    hi.up = lo.up = {{constantDim(), 1.0f}};
    for (const Term& t : down) {
        hi.down.push_back({t.dim, t.weight / kStep});
        lo.down.push_back({t.dim, -t.weight / kStep});
    }
    m_layers.at(size_t(layer)).mlp.push_back(hi);
    m_layers.at(size_t(layer)).mlp.push_back(lo);
}

// With x = 1 - 2t (bipolar), sum w t + theta >= 0  <=>  sum (-w) x + (sum w + 2 theta) >= 0 (times 2).
void Circuit::threshold(int layer, const std::vector<std::pair<int, int>>& weightedTruths, int theta, int out) {
    std::vector<Term> gate;
    int constant = 2 * theta;
    for (auto [dim, w] : weightedTruths) {
        gate.push_back({dim, float(-w)});
        constant += w;
    }
    addNeuronPair(layer, gate, float(constant), {{out, -2.0f}});  // true flips +1 to -1
}

void Circuit::xorGate(int layer, int a, int b, int out) {
    // OR adds -2, AND adds +2 back: a xor b flips the slot exactly when OR and not AND
    std::vector<Term> gate{{a, -1.f}, {b, -1.f}};
    addNeuronPair(layer, gate, 2 * -1 + 2, {{out, -2.0f}});  // OR: t_a + t_b - 1 >= 0
    addNeuronPair(layer, gate, 2 * -2 + 2, {{out, 2.0f}});   // AND: t_a + t_b - 2 >= 0
}

void Circuit::decode(int layer, const std::vector<int>& bits, const std::vector<int>& outs) {
    int n = int(bits.size());
    for (size_t v = 0; v < outs.size(); ++v) {
        // sum_i s_i x_i - n >= 0 with s_i = +1 where bit i of v is 0 (x = +1), -1 where it is 1
        std::vector<Term> gate;
        for (int i = 0; i < n; ++i) gate.push_back({bits[size_t(i)], (v >> i) & 1 ? -1.f : 1.f});
        addNeuronPair(layer, gate, float(-n), {{outs[v], -2.0f}});
    }
}

void Circuit::add32(int first, const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& out,
                    bool subtract, const std::string& name) {
    if (a.size() != 32 || b.size() != 32 || out.size() != 32)
        throw std::invalid_argument("add32 takes 32-bit operands");
    while (layerCount() < first + 3) addLayer();
    // Subtraction is a + ~b + 1: b's truths enter negated (weight -1 and one more on the constant side)
    // and the carry into bit 0 is 1.
    int carryIn = subtract ? 1 : 0;
    auto bTerm = [&](int j, int weight, std::vector<std::pair<int, int>>& terms, int& theta) {
        if (subtract) {
            terms.push_back({b[size_t(j)], -weight});
            theta += weight;
        } else {
            terms.push_back({b[size_t(j)], weight});
        }
    };
    std::vector<int> carry(33, -1);  // carry[i]: carry into bit i (slot), bit 0 has the constant carryIn
    for (int i = 1; i <= 32; ++i) carry[size_t(i)] = addFeature(name + ".c" + std::to_string(i));
    // c_i = [sum_{lo <= j < i} 2^(j-lo) (a_j + b_j) + 2^0 c_lo >= 2^(i-lo)] over the window [lo, i)
    for (int i = 1; i <= 32; ++i) {
        int lo = i <= 16 ? 0 : 16, layer = i <= 16 ? first : first + 1;
        std::vector<std::pair<int, int>> terms;
        int theta = -(1 << (i - lo));
        for (int j = lo; j < i; ++j) {
            terms.push_back({a[size_t(j)], 1 << (j - lo)});
            bTerm(j, 1 << (j - lo), terms, theta);
        }
        if (lo == 0)
            theta += carryIn;
        else
            terms.push_back({carry[16], 1});
        threshold(layer, terms, theta, carry[size_t(i)]);
    }
    // s_i = parity(a_i, b_i, c_i) = [n >= 1] - [n >= 2] + [n >= 3]
    for (int i = 0; i < 32; ++i) {
        // 2n = (1 - x_a) + (1 -+ x_b) + (1 - x_c) with n = t_a + t_b (or 1 - t_b) + t_c
        std::vector<Term> gate{{a[size_t(i)], -1.f}, {b[size_t(i)], subtract ? 1.f : -1.f}};
        float constant = 2;
        if (i == 0)
            constant += 2 * carryIn;
        else
            gate.push_back({carry[size_t(i)], -1.f}), constant += 1;
        // 2n = sum of the gate terms + constant; [n >= k] = [2n - 2k >= 0]
        for (int k = 1; k <= 3; ++k)
            addNeuronPair(first + 2, gate, constant - 2 * k, {{out[size_t(i)], k == 2 ? 2.f : -2.f}});
    }
}

void Circuit::halfTerms(const std::vector<int>& v, int lo, int sign, bool isSigned,
                        std::vector<std::pair<int, int>>& terms) const {
    for (int j = lo; j < lo + 16; ++j) {
        int w = 1 << (j - lo);
        if (isSigned && j == 31) w = -w;  // the sign bit weighs -2^31 (here -2^15 within the high half)
        terms.push_back({v[size_t(j)], sign * w});
    }
}

void Circuit::greaterOrEqual32(int first, const std::vector<int>& a, const std::vector<int>& b, int out, bool isSigned,
                               const std::string& name) {
    if (a.size() != 32 || b.size() != 32) throw std::invalid_argument("compares take 32-bit operands");
    while (layerCount() < first + 2) addLayer();
    int gtHi = addFeature(name + ".gt_hi"), geHi = addFeature(name + ".ge_hi"), leHi = addFeature(name + ".le_hi");
    int geLo = addFeature(name + ".ge_lo");
    std::vector<std::pair<int, int>> hi, neg, lo;
    halfTerms(a, 16, 1, isSigned, hi);
    halfTerms(b, 16, -1, isSigned, hi);  // hi = hi_a - hi_b
    for (auto [d, w] : hi) neg.push_back({d, -w});
    halfTerms(a, 0, 1, false, lo);
    halfTerms(b, 0, -1, false, lo);  // the low halves always compare unsigned
    threshold(first, hi, -1, gtHi);
    threshold(first, hi, 0, geHi);
    threshold(first, neg, 0, leHi);
    threshold(first, lo, 0, geLo);
    threshold(first + 1, {{gtHi, 2}, {geHi, 1}, {leHi, 1}, {geLo, 1}}, -3, out);
}

void Circuit::equal32(int first, const std::vector<int>& a, const std::vector<int>& b, int out,
                      const std::string& name) {
    if (a.size() != 32 || b.size() != 32) throw std::invalid_argument("compares take 32-bit operands");
    while (layerCount() < first + 2) addLayer();
    std::vector<int> parts;
    for (int lo : {0, 16}) {
        std::vector<std::pair<int, int>> diff, neg;
        halfTerms(a, lo, 1, false, diff);
        halfTerms(b, lo, -1, false, diff);
        for (auto [d, w] : diff) neg.push_back({d, -w});
        int ge = addFeature(name + ".ge" + std::to_string(lo)), le = addFeature(name + ".le" + std::to_string(lo));
        threshold(first, diff, 0, ge);
        threshold(first, neg, 0, le);
        parts.push_back(ge);
        parts.push_back(le);
    }
    threshold(first + 1, {{parts[0], 1}, {parts[1], 1}, {parts[2], 1}, {parts[3], 1}}, -4, out);
}

void Circuit::select(int layer, int c, const std::vector<int>& x, const std::vector<int>& y,
                     const std::vector<int>& out) {
    if (x.size() != y.size() || x.size() != out.size()) throw std::invalid_argument("select takes equal widths");
    for (size_t i = 0; i < out.size(); ++i) {
        threshold(layer, {{c, 1}, {x[i], 1}}, -2, out[i]);   // c and x_i
        threshold(layer, {{c, -1}, {y[i], 1}}, -1, out[i]);  // not c and y_i
    }
}

void Circuit::shift32(int first, Shift kind, const std::vector<int>& a, const std::vector<int>& amount,
                      const std::vector<int>& out, const std::string& name) {
    if (a.size() != 32 || amount.size() != 32 || out.size() != 32)
        throw std::invalid_argument("shift32 takes 32-bit operands");
    while (layerCount() < first + 2) addLayer();
    // by[k]: the amount is exactly k (k < 32); big: the amount is 32 or more (a high bit is set)
    std::vector<int> by;
    for (int k = 0; k < 32; ++k) {
        by.push_back(addFeature(name + ".by" + std::to_string(k)));
        std::vector<std::pair<int, int>> terms;
        int ones = 0;
        for (int i = 0; i < 32; ++i) {
            bool set = i < 5 && (k >> i & 1);
            terms.push_back({amount[size_t(i)], set ? 1 : -1});
            ones += set;
        }
        threshold(first, terms, -ones, by.back());  // all of k's bits set and every other bit clear
    }
    int big = addFeature(name + ".big");
    std::vector<std::pair<int, int>> high;
    for (int i = 5; i < 32; ++i) high.push_back({amount[size_t(i)], 1});
    threshold(first, high, -1, big);
    for (int i = 0; i < 32; ++i) {
        for (int k = 0; k < 32; ++k) {
            int src = kind == Shift::Left ? i - k : i + k;
            if (src >= 32 && kind == Shift::RightArithmetic) src = 31;
            if (src < 0 || src >= 32) continue;
            threshold(first + 1, {{by[size_t(k)], 1}, {a[size_t(src)], 1}}, -2, out[size_t(i)]);
        }
        if (kind == Shift::RightArithmetic) threshold(first + 1, {{big, 1}, {a[31], 1}}, -2, out[size_t(i)]);
    }
}

void Circuit::memoryPort(int layer, MemoryPort port) {
    const Geometry& g = m_geometry;
    if (port.head < 0 || port.head >= g.linearNumValueHeads)
        throw std::invalid_argument("memory port on a missing head");
    if (int(port.writeRows.size()) > g.linearKeyHeadDim || int(port.readRows.size()) > g.linearKeyHeadDim)
        throw std::invalid_argument("a memory port has more rows than the key head dimension");
    // Dual rails put exactly one 1024 per bit in a row: with bits = dv / 4 the head's RMSNorm scale is 2.
    if (4 * int(port.dataBits.size()) != g.linearValueHeadDim || port.outBits.size() != port.dataBits.size())
        throw std::invalid_argument(
            "a memory row holds exactly linear_value_head_dim / 4 bits, read into as many outputs");
    if (g.linearNumKeyHeads <= 0 || g.linearNumValueHeads % g.linearNumKeyHeads)
        throw std::invalid_argument("value heads must be a multiple of key heads");
    int group = g.linearNumValueHeads / g.linearNumKeyHeads;  // value heads sharing one key head
    for (const auto& other : m_layers.at(size_t(layer)).ports)
        if (other.head / group == port.head / group)
            throw std::invalid_argument("two memory ports would share a key head (its keys and queries)");
    m_layers.at(size_t(layer)).ports.push_back(std::move(port));
}

std::vector<float> Circuit::tokenEmbedding(const std::vector<int>& trueDims) const {
    int h = m_geometry.hiddenSize;
    std::vector<float> x(size_t(h), 0.f);
    x[size_t(constantDim())] = 1.f;
    for (int d = 1; d < m_nextDim; ++d) x[size_t(d)] = m_initial.count(d) ? m_initial.at(d) : 1.f;
    for (int d : trueDims) {
        if (d <= 0 || d >= m_nextDim)
            throw std::invalid_argument("tokenEmbedding: dim " + std::to_string(d) + " is no feature");
        x[size_t(d)] = -1.f;
    }
    // Ballast: the remaining energy as a sum of integer squares, largest first, in the top dimensions.
    int64_t need = int64_t(kMeanSquare) * h;
    for (int d = 0; d < m_nextDim; ++d) need -= int64_t(x[size_t(d)] * x[size_t(d)]);
    for (int d = h - 1; need > 0 && d >= m_nextDim; --d) {
        int64_t r = int64_t(std::sqrt(double(need)));
        // the largest root whose value bf16 also holds exactly (8 significant bits), so embeddings
        // survive a bf16 checkpoint
        while (r * r > need || (r >> __builtin_ctzll(uint64_t(r))) >= 256) --r;
        x[size_t(d)] = float(r);
        need -= r * r;
    }
    if (need != 0) throw std::length_error("no room for the residual's ballast");
    return x;
}

// Channel layout of in_proj_qkv: all q heads, all k heads, all v heads (head-major inside each).
void Circuit::emitPort(const MemoryPort& port, NamedTensor& qkv, NamedTensor& z, NamedTensor& b, NamedTensor& conv,
                       NamedTensor& outProj) const {
    const Geometry& g = m_geometry;
    size_t h = size_t(g.hiddenSize), kernel = size_t(g.convKernel);
    int keyHead = port.head / (g.linearNumValueHeads / g.linearNumKeyHeads);
    size_t keyDim = size_t(g.linearNumKeyHeads * g.linearKeyHeadDim), valueDim = size_t(g.linearValueHeadDim);
    size_t cst = size_t(constantDim());
    auto channel = [&](size_t row, int slot, float amplitude) {
        // amplitude * truth = amplitude/2 * (constant - slot); only the current token's tap of the conv
        qkv.values[row * h + cst] = amplitude / 2;
        qkv.values[row * h + size_t(slot)] = -amplitude / 2;
        conv.values[row * kernel + kernel - 1] = 1.f;
    };
    size_t qBase = size_t(keyHead * g.linearKeyHeadDim), kBase = keyDim + qBase;
    size_t vBase = 2 * keyDim + size_t(port.head) * valueDim;
    for (size_t r = 0; r < port.readRows.size(); ++r) channel(qBase + r, port.readRows[r], kKeyAmplitude);
    for (size_t r = 0; r < port.writeRows.size(); ++r) channel(kBase + r, port.writeRows[r], kKeyAmplitude);
    for (size_t i = 0; i < port.dataBits.size(); ++i) {
        channel(vBase + 2 * i, port.dataBits[i], kRowAmplitude);  // rail 1: 1024 when the bit is true
        size_t rail0 = vBase + 2 * i + 1;                         // rail 0: 1024 when it is false
        qkv.values[rail0 * h + cst] = kRowAmplitude / 2;
        qkv.values[rail0 * h + size_t(port.dataBits[i])] = kRowAmplitude / 2;
        conv.values[rail0 * kernel + kernel - 1] = 1.f;
        size_t column = size_t(port.head) * valueDim + 2 * i, width = size_t(g.linearNumValueHeads) * valueDim;
        outProj.values[size_t(port.outBits[i]) * width + column] = -1.f;  // (64, 62) -> (62, 64)
        outProj.values[size_t(port.outBits[i] + 1) * width + column] = 1.f;
    }
    b.values[size_t(port.head) * h + cst] = 32.f;  // beta = sigmoid(32) = 1 on circuit tokens
    for (size_t c = 0; c < valueDim; ++c)
        z.values[(size_t(port.head) * valueDim + c) * h + cst] = 32.f;  // silu(32) = 32
}

int Circuit::intermediateNeeded() const {
    size_t n = 0;
    for (const auto& l : m_layers) n = std::max(n, l.mlp.size());
    return int(n);
}

std::vector<NamedTensor> Circuit::emit(const std::vector<std::vector<float>>& embeddingRows) const {
    const Geometry& g = m_geometry;
    int64_t h = g.hiddenSize, in = g.intermediateSize, hv = g.linearNumValueHeads;
    int64_t keyDim = g.linearNumKeyHeads * g.linearKeyHeadDim, valueDim = hv * g.linearValueHeadDim;
    if (intermediateNeeded() > in) throw std::length_error("a layer needs more MLP neurons than intermediate_size");
    auto zeros = [](std::string name, std::vector<int64_t> shape, float fill = 0.f) {
        int64_t n = 1;
        for (int64_t s : shape) n *= s;
        return NamedTensor{std::move(name), std::move(shape), std::vector<float>(size_t(n), fill)};
    };
    std::vector<NamedTensor> out;
    NamedTensor embed = zeros("embed_tokens.weight", {int64_t(embeddingRows.size()), h});
    for (size_t r = 0; r < embeddingRows.size(); ++r) {
        if (int64_t(embeddingRows[r].size()) != h)
            throw std::invalid_argument("an embedding row is not hidden_size long");
        std::copy(embeddingRows[r].begin(), embeddingRows[r].end(), embed.values.begin() + int64_t(r) * h);
    }
    out.push_back(std::move(embed));
    out.push_back(zeros("norm.weight", {h}));
    for (size_t i = 0; i < m_layers.size(); ++i) {
        std::string p = "layers." + std::to_string(i) + ".";
        // mean(x^2) = 4096: the norm multiplies by exactly 1/64, and (1 + 63) gives the residual back
        out.push_back(zeros(p + "input_layernorm.weight", {h}, kNormWeight));
        out.push_back(zeros(p + "post_attention_layernorm.weight", {h}, kNormWeight));
        NamedTensor gate = zeros(p + "mlp.gate_proj.weight", {in, h}), up = zeros(p + "mlp.up_proj.weight", {in, h});
        NamedTensor down = zeros(p + "mlp.down_proj.weight", {h, in});
        for (size_t n = 0; n < m_layers[i].mlp.size(); ++n) {
            const Neuron& neuron = m_layers[i].mlp[n];
            for (const Term& t : neuron.gate) gate.values[n * size_t(h) + size_t(t.dim)] += t.weight;
            for (const Term& t : neuron.up) up.values[n * size_t(h) + size_t(t.dim)] += t.weight;
            for (const Term& t : neuron.down) down.values[size_t(t.dim) * size_t(in) + n] += t.weight;
        }
        out.push_back(std::move(gate));
        out.push_back(std::move(up));
        out.push_back(std::move(down));
        // The Gated DeltaNet: silent heads have zero projections (they write nothing and read zeros);
        // memory ports get one-hot keys and queries and dual-rail rows. No decay anywhere.
        NamedTensor qkv = zeros(p + "linear_attn.in_proj_qkv.weight", {2 * keyDim + valueDim, h});
        NamedTensor z = zeros(p + "linear_attn.in_proj_z.weight", {valueDim, h});
        NamedTensor b = zeros(p + "linear_attn.in_proj_b.weight", {hv, h});
        NamedTensor conv = zeros(p + "linear_attn.conv1d.weight", {2 * keyDim + valueDim, 1, g.convKernel});
        NamedTensor outProj = zeros(p + "linear_attn.out_proj.weight", {h, valueDim});
        for (const MemoryPort& port : m_layers[i].ports) emitPort(port, qkv, z, b, conv, outProj);
        out.push_back(std::move(qkv));
        out.push_back(std::move(z));
        out.push_back(std::move(b));
        out.push_back(zeros(p + "linear_attn.in_proj_a.weight", {hv, h}));
        out.push_back(std::move(conv));
        out.push_back(zeros(p + "linear_attn.dt_bias", {hv}));
        out.push_back(zeros(p + "linear_attn.A_log", {hv}, -110.f));
        // Each read row has 32 of 128 channels at the same magnitude, so the head's RMSNorm makes them
        // exactly 2 (docs/circuit.md); 1/32 here and silu(z) = 32 make the read 2 per true bit.
        out.push_back(zeros(p + "linear_attn.norm.weight", {g.linearValueHeadDim}, kReadNormWeight));
        out.push_back(std::move(outProj));
    }
    return out;
}

}  // namespace qgpu::circuit
