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

std::vector<float> Circuit::tokenEmbedding(const std::vector<int>& trueDims) const {
    int h = m_geometry.hiddenSize;
    std::vector<float> x(size_t(h), 0.f);
    x[size_t(constantDim())] = 1.f;
    for (int d = 1; d < m_nextDim; ++d) x[size_t(d)] = 1.f;
    for (int d : trueDims) x[size_t(d)] = -1.f;
    // Ballast: the remaining energy as a sum of integer squares, largest first, in the top dimensions.
    int64_t need = int64_t(kMeanSquare) * h - (m_nextDim);
    for (int d = h - 1; need > 0 && d >= m_nextDim; --d) {
        int64_t r = int64_t(std::sqrt(double(need)));
        while (r * r > need) --r;
        x[size_t(d)] = float(r);
        need -= r * r;
    }
    if (need != 0) throw std::length_error("no room for the residual's ballast");
    return x;
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
    for (size_t r = 0; r < embeddingRows.size(); ++r)
        std::copy(embeddingRows[r].begin(), embeddingRows[r].end(), embed.values.begin() + int64_t(r) * h);
    out.push_back(std::move(embed));
    out.push_back(zeros("norm.weight", {h}));
    for (size_t i = 0; i < m_layers.size(); ++i) {
        std::string p = "layers." + std::to_string(i) + ".";
        // mean(x^2) = 64: the norm multiplies by exactly 1/8, and (1 + 7) gives the residual back
        out.push_back(zeros(p + "input_layernorm.weight", {h}, 7.f));
        out.push_back(zeros(p + "post_attention_layernorm.weight", {h}, 7.f));
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
        // A silent Gated DeltaNet: zero projections write nothing and read zeros; no decay.
        out.push_back(zeros(p + "linear_attn.in_proj_qkv.weight", {2 * keyDim + valueDim, h}));
        out.push_back(zeros(p + "linear_attn.in_proj_z.weight", {valueDim, h}));
        out.push_back(zeros(p + "linear_attn.in_proj_b.weight", {hv, h}));
        out.push_back(zeros(p + "linear_attn.in_proj_a.weight", {hv, h}));
        out.push_back(zeros(p + "linear_attn.conv1d.weight", {2 * keyDim + valueDim, 1, g.convKernel}));
        out.push_back(zeros(p + "linear_attn.dt_bias", {hv}));
        out.push_back(zeros(p + "linear_attn.A_log", {hv}, -110.f));
        out.push_back(zeros(p + "linear_attn.norm.weight", {g.linearValueHeadDim}, 1.f));
        out.push_back(zeros(p + "linear_attn.out_proj.weight", {h, valueDim}));
    }
    return out;
}

}  // namespace qgpu::circuit
