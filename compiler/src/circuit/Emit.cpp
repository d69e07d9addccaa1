// Emission of a circuit as stock Qwen3.5 tensors, and its layout file.
#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "qgpu/compiler/circuit/Circuit.h"

namespace qgpu::circuit {

namespace {

NamedTensor zeros(std::string name, std::vector<int64_t> shape, float fill = 0.f) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return NamedTensor{std::move(name), std::move(shape), std::vector<float>(size_t(n), fill), false, {}};
}

// A matrix that emission adds weights into: dense, or (sparse) collecting the additions in order.
NamedTensor matrix(std::string name, std::vector<int64_t> shape, bool sparse) {
    if (!sparse) return zeros(std::move(name), std::move(shape));
    return NamedTensor{std::move(name), std::move(shape), {}, true, {}};
}

void add(NamedTensor& t, size_t index, float weight) {
    if (t.sparse)
        t.entries.push_back({int64_t(index), weight});
    else
        t.values[index] += weight;
}

// A sparse matrix's additions summed per entry in the order they came (as the dense += sums them), the
// zeros dropped.
void coalesce(NamedTensor& t) {
    if (!t.sparse) return;
    std::stable_sort(t.entries.begin(), t.entries.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<std::pair<int64_t, float>> summed;
    for (size_t i = 0; i < t.entries.size();) {
        float sum = 0.f;
        size_t j = i;
        for (; j < t.entries.size() && t.entries[j].first == t.entries[i].first; ++j) sum += t.entries[j].second;
        if (sum != 0) summed.push_back({t.entries[i].first, sum});
        i = j;
    }
    t.entries = std::move(summed);
}

// The largest part of |w| with at most 8 significant bits (what bf16 holds), with w's sign.
double bf16Part(double w) {
    if (w == 0) return 0;
    int exponent = std::ilogb(w);
    double unit = std::ldexp(1.0, exponent - 7);
    return std::trunc(w / unit) * unit;
}

// Writes the input-projection weight of `dim` into a row that reads the normalised residual: scaled back
// by the RMSNorm's exact factor, and a constant split over the constant dims in bf16-exact parts.
class InputRow {
public:
    InputRow(NamedTensor& matrix, size_t hidden, double scale) : m(matrix), h(hidden), s(scale) {}
    void add(size_t row, int dim, double weight) const {
        if (dim != 0) {
            circuit::add(m, row * h + size_t(dim), float(weight * s));
            return;
        }
        double rest = weight;
        for (int d = 0; d < Circuit::kConstantDims; ++d) {
            double part = bf16Part(rest);
            circuit::add(m, row * h + size_t(d), float(part * s));
            rest -= part;
        }
        if (rest != 0) throw std::length_error("a constant weight needs more than 24 significant bits");
    }
    void add(size_t row, const std::vector<Term>& terms) const {
        for (const Term& t : terms) add(row, t.dim, t.weight);
    }

private:
    NamedTensor& m;
    size_t h;
    double s;
};

const char* encodingName(Encoding e) {
    switch (e) {
        case Encoding::Bit: return "bit";
        case Encoding::ReadBit: return "read_bit";
        case Encoding::Integer: return "integer";
    }
    return "?";
}

}  // namespace

// Channel layout of in_proj_qkv: all q heads, all k heads, all v heads (head-major inside each).
void Circuit::emitPort(const MemoryPort& port, NamedTensor& qkv, NamedTensor& z, NamedTensor& b, NamedTensor& conv,
                       NamedTensor& outProj) const {
    const Geometry& g = m_geometry;
    size_t h = size_t(g.hiddenSize), kernel = size_t(g.convKernel);
    InputRow qkvRow(qkv, h, inputScale()), zRow(z, h, inputScale()), bRow(b, h, inputScale());
    int keyHead = port.head / (g.linearNumValueHeads / g.linearNumKeyHeads);
    size_t keyDim = size_t(g.linearNumKeyHeads * g.linearKeyHeadDim), valueDim = size_t(g.linearValueHeadDim);
    auto channel = [&](size_t row, const Linear& v, int tap = 0) {  // one tap of the conv: this token's or earlier
        qkvRow.add(row, v.terms);
        qkvRow.add(row, constantDim(), v.constant);
        conv.values[row * kernel + kernel - 1 - size_t(tap)] = 1.f;
    };
    size_t qBase = size_t(keyHead * g.linearKeyHeadDim), kBase = keyDim + qBase;
    size_t vBase = 2 * keyDim + size_t(port.head) * valueDim;
    auto scaled = [](Linear v, double s) { return Linear{}.add(v, s); };
    // A key channel is one row bit (amplitude 32), or the AND of several bits (row, low row factor, select):
    // 128 (sum of truths - (n - 1)), which the conv's silu makes 128 when all hold and 0 or -0 otherwise.
    auto key = [&](std::vector<int> bits) {
        if (bits.size() == 1) return scaled(truth(bits[0]), kKeyAmplitude);
        Linear k{{}, -kGatedKeyAmplitude * double(bits.size() - 1)};
        for (int bit : bits) k.add(truth(bit), kGatedKeyAmplitude);
        return k;
    };
    auto keys = [&](size_t base, const std::vector<int>& rows, const std::vector<int>& low, int select) {
        for (size_t hi = 0; hi < rows.size(); ++hi)
            for (size_t lo = 0; lo < std::max<size_t>(1, low.size()); ++lo) {
                std::vector<int> bits{rows[hi]};
                if (!low.empty()) bits.push_back(low[lo]);
                if (select >= 0) bits.push_back(select);
                channel(base + hi * std::max<size_t>(1, low.size()) + lo, key(bits));
            }
    };
    keys(qBase, port.readRows, port.readRowsLow, port.readSelect);
    keys(kBase, port.writeRows, port.writeRowsLow, port.writeSelect);
    for (size_t i = 0; i < port.dataBits.size(); ++i) {
        Linear t = truth(port.dataBits[i]);
        channel(vBase + 2 * i, scaled(t, kRowAmplitude), port.dataTap);  // rail 1: 1024 when the bit is true
        channel(vBase + 2 * i + 1, Linear{{}, kRowAmplitude}.add(t, -kRowAmplitude), port.dataTap);  // rail 0
        size_t column = size_t(port.head) * valueDim + 2 * i, width = size_t(g.linearNumValueHeads) * valueDim;
        add(outProj, size_t(port.outBits[i]) * width + column, -1.f);  // a true bit reads 64 -> 62 (one entry each)
    }
    bRow.add(size_t(port.head), constantDim(), 32.f);  // beta = sigmoid(32) = 1 on circuit tokens
    for (size_t c = 0; c < valueDim; ++c) zRow.add(size_t(port.head) * valueDim + c, constantDim(), 32.f);  // silu 32
}

int Circuit::intermediateNeeded() const {
    size_t n = 0;
    for (const auto& l : m_layers) n = std::max(n, l.mlp.size());
    return int(n);
}

std::vector<NamedTensor> Circuit::emit(const std::vector<std::vector<float>>& embeddingRows,
                                       bool sparseMatrices) const {
    const Geometry& g = m_geometry;
    int64_t h = g.hiddenSize, in = g.intermediateSize, hv = g.linearNumValueHeads;
    int64_t keyDim = g.linearNumKeyHeads * g.linearKeyHeadDim, valueDim = hv * g.linearValueHeadDim;
    if (intermediateNeeded() > in)
        throw std::length_error("a layer needs " + std::to_string(intermediateNeeded()) +
                                " MLP neurons, more than intermediate_size " + std::to_string(in));
    std::vector<NamedTensor> out;
    NamedTensor embed = zeros("embed_tokens.weight", {int64_t(embeddingRows.size()), h});
    for (size_t r = 0; r < embeddingRows.size(); ++r) {
        if (int64_t(embeddingRows[r].size()) != h)
            throw std::invalid_argument("an embedding row is not hidden_size long");
        std::copy(embeddingRows[r].begin(), embeddingRows[r].end(), embed.values.begin() + int64_t(r) * h);
    }
    out.push_back(std::move(embed));
    NamedTensor finalNorm = zeros("norm.weight", {h});
    if (!m_finalNorm.empty()) {
        if (int64_t(m_finalNorm.size()) != h) throw std::invalid_argument("the final norm is not hidden_size long");
        finalNorm.values = m_finalNorm;
    }
    out.push_back(std::move(finalNorm));
    for (size_t i = 0; i < m_layers.size(); ++i) {
        std::string p = "layers." + std::to_string(i) + ".";
        // The ballast fixes every RMSNorm's scale to an exact power of two; the norms keep weight 1 and
        // the input projections carry the inverse factor (InputRow).
        out.push_back(zeros(p + "input_layernorm.weight", {h}));
        out.push_back(zeros(p + "post_attention_layernorm.weight", {h}));
        NamedTensor gate = matrix(p + "mlp.gate_proj.weight", {in, h}, sparseMatrices);
        NamedTensor up = matrix(p + "mlp.up_proj.weight", {in, h}, sparseMatrices);
        NamedTensor down = matrix(p + "mlp.down_proj.weight", {h, in}, sparseMatrices);
        InputRow gateRow(gate, size_t(h), inputScale()), upRow(up, size_t(h), inputScale());
        for (size_t n = 0; n < m_layers[i].mlp.size(); ++n) {
            const Neuron& neuron = m_layers[i].mlp[n];
            gateRow.add(n, neuron.gate);
            upRow.add(n, neuron.up);
            for (const Term& t : neuron.down) add(down, size_t(t.dim) * size_t(in) + n, t.weight);
        }
        for (NamedTensor* t : {&gate, &up, &down}) {
            coalesce(*t);
            out.push_back(std::move(*t));
        }
        // The Gated DeltaNet: silent heads have zero projections (they write nothing and read zeros);
        // memory ports get one-hot keys and queries and dual-rail rows. No decay anywhere.
        NamedTensor qkv = matrix(p + "linear_attn.in_proj_qkv.weight", {2 * keyDim + valueDim, h}, sparseMatrices);
        NamedTensor z = matrix(p + "linear_attn.in_proj_z.weight", {valueDim, h}, sparseMatrices);
        NamedTensor b = zeros(p + "linear_attn.in_proj_b.weight", {hv, h});
        NamedTensor conv = zeros(p + "linear_attn.conv1d.weight", {2 * keyDim + valueDim, 1, g.convKernel});
        NamedTensor outProj = matrix(p + "linear_attn.out_proj.weight", {h, valueDim}, sparseMatrices);
        for (const MemoryPort& port : m_layers[i].ports) emitPort(port, qkv, z, b, conv, outProj);
        for (NamedTensor* t : {&qkv, &z, &outProj}) coalesce(*t);
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

std::string Circuit::layoutJson() const {
    using nlohmann::json;
    json features = json::array();
    for (const Feature& f : m_features)
        features.push_back(
            {{"name", f.name}, {"dim", f.dim}, {"encoding", encodingName(f.encoding)}, {"base", f.base}});
    json layers = json::array();
    for (size_t i = 0; i < m_layers.size(); ++i) {
        json ports = json::array();
        for (const MemoryPort& port : m_layers[i].ports) {
            auto names = [&](const std::vector<int>& dims) {
                json a = json::array();
                for (int d : dims) a.push_back(featureAt(d).name);
                return a;
            };
            int rows = port.rows();
            json rowNames = json::array();
            for (int r = 0; r < rows; ++r) rowNames.push_back(port.name + "[" + std::to_string(r) + "]");
            ports.push_back({{"name", port.name},
                             {"head", port.head},
                             {"state_rows", rowNames},
                             {"bit_columns", "bit i: column 2i holds 1024 when true, 2i+1 when false"},
                             {"bits", int(port.dataBits.size())},
                             {"write_rows", names(port.writeRows)},
                             {"read_rows", names(port.readRows)},
                             {"write_rows_low", names(port.writeRowsLow)},
                             {"read_rows_low", names(port.readRowsLow)},
                             {"data", names(port.dataBits)},
                             {"out", names(port.outBits)}});
        }
        layers.push_back({{"layer", i}, {"mlp_neurons", m_layers[i].mlp.size()}, {"ports", ports}});
    }
    json layout = {{"format", "qgpu-circuit-layout"},
                   {"version", 1},
                   {"hidden_size", m_geometry.hiddenSize},
                   {"constant_dims", kConstantDims},
                   {"ballast", {{"dims", ballastDims()}, {"value", std::ldexp(1.0, kBallastExponent)}}},
                   {"input_scale", inputScale()},
                   {"features", features},
                   {"layers", layers}};
    return layout.dump(1);
}

}  // namespace qgpu::circuit
