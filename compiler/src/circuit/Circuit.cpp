#include "qgpu/compiler/circuit/Circuit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace qgpu::circuit {

Linear& Linear::add(const Linear& other, double scale) {
    for (const Term& t : other.terms) terms.push_back({t.dim, float(t.weight * scale)});
    constant += other.constant * scale;
    return *this;
}

Circuit::Circuit(Geometry geometry) : m_geometry(geometry) {}

int Circuit::allocate(const std::string& name, Encoding encoding, float base, int born) {
    if (m_byName.count(name)) throw std::invalid_argument("two features named " + name);
    int dim = -1;
    // The slot is cleared in layer `born`; a read bit lands in the mixer of `born`, so its slot is cleared
    // by the MLP of the layer before (which must have room: every gadget there is already emitted).
    bool read = encoding == Encoding::ReadBit;
    int clearAt = read ? born - 1 : born;
    bool room = !read || (clearAt >= 0 &&
                          (clearAt >= layerCount() || int(layer(clearAt).mlp.size()) < m_geometry.intermediateSize));
    for (const auto& [d, owners] : m_owners) {
        const Feature& last = m_features[owners.back()];
        if (room && last.encoding == encoding && last.released >= 0 && last.released < born) {
            dim = d;
            break;
        }
    }
    if (dim >= 0) {
        while (layerCount() <= born) addLayer();
        clear(clearAt, dim);  // the slot still holds its last owner's value
    } else {
        dim = m_nextDim;
        if (dim + int(ballastDims().size()) >= m_geometry.hiddenSize)
            throw std::length_error("the residual has no room for feature " + name);
        ++m_nextDim;
    }
    m_owners[dim].push_back(m_features.size());
    m_features.push_back({name, dim, encoding, base, born, -1});
    m_byName[name] = dim;
    return dim;
}

int Circuit::addFeature(const std::string& name, int born) { return allocate(name, Encoding::Bit, 1.f, born); }
int Circuit::addInteger(const std::string& name, int born) { return allocate(name, Encoding::Integer, 0.f, born); }
int Circuit::addReadBit(const std::string& name, int born) {
    return allocate(name, Encoding::ReadBit, kReadBase, born);
}

void Circuit::release(int dim, int lastLayer) {
    featureAt(dim);  // throws for a dim that is no feature
    Feature& f = m_features[m_owners.at(dim).back()];
    if (lastLayer < f.born) throw std::invalid_argument(f.name + " is released before it is written");
    f.released = lastLayer;
}

int Circuit::feature(const std::string& name) const {
    auto it = m_byName.find(name);
    return it == m_byName.end() ? -1 : it->second;
}

const Feature& Circuit::featureAt(int dim) const {
    auto it = m_owners.find(dim);
    if (it == m_owners.end()) throw std::invalid_argument("dim " + std::to_string(dim) + " is no feature");
    return m_features[it->second.front()];
}

// n dims at 2^40 with n / hidden a power of 4: the mean square is then an even power of two and the
// RMSNorm's rsqrt exactly a power of two.
std::vector<int> Circuit::ballastDims() const {
    int h = m_geometry.hiddenSize, n = h;
    while (n % 4 == 0) n /= 4;
    std::vector<int> dims;
    for (int i = 0; i < n; ++i) dims.push_back(h - 1 - i);
    return dims;
}

double Circuit::inputScale() const {
    double meanSquare = double(ballastDims().size()) * std::ldexp(1.0, 2 * kBallastExponent) / m_geometry.hiddenSize;
    return std::sqrt(meanSquare);  // an exact power of two by the choice of the ballast count
}

Linear Circuit::truth(int dim) const {
    const Feature& f = featureAt(dim);
    if (f.encoding == Encoding::Integer) throw std::invalid_argument(f.name + " is an integer, not a bit");
    return Linear{{{dim, -0.5f}}, f.base / 2.0};  // x = base - 2t
}

Linear Circuit::value(int dim) const {
    const Feature& f = featureAt(dim);
    if (f.encoding != Encoding::Integer) throw std::invalid_argument(f.name + " is a bit, not an integer");
    return Linear{{{dim, 1.f}}, 0};
}

int Circuit::addLayer() {
    m_layers.emplace_back();
    return int(m_layers.size() - 1);
}

// Two neurons give K [b >= 0] with the constant as the up projection:
//   silu(K (b + 1)) * 1 - silu(K b) * 1.
// b is an integer on circuit tokens, so both silus are exact (identity or -0).
void Circuit::step(int layer, const Linear& b, const std::vector<Term>& down) {
    Neuron hi, lo;
    hi.gate = lo.gate = b.terms;
    for (Term& t : hi.gate) t.weight *= kStep;
    for (Term& t : lo.gate) t.weight *= kStep;
    hi.gate.push_back({constantDim(), float(kStep * (b.constant + 1))});
    lo.gate.push_back({constantDim(), float(kStep * b.constant)});
    hi.up = lo.up = {{constantDim(), 1.0f}};
    for (const Term& t : down) {
        hi.down.push_back({t.dim, t.weight / kStep});
        lo.down.push_back({t.dim, -t.weight / kStep});
    }
    m_layers.at(size_t(layer)).mlp.push_back(hi);
    m_layers.at(size_t(layer)).mlp.push_back(lo);
}

// silu(32 t) is exactly 32 t for t in {0, 1}, so silu(gate) * up = 32 t v and the down projection's 1/32
// leaves t v: SwiGLU's product is a native AND of a bit with an integer.
void Circuit::maskedProduct(int layer, int bit, const Linear& v, const std::vector<Term>& down) {
    Neuron n;
    Linear gate = truth(bit);
    for (const Term& t : gate.terms) n.gate.push_back({t.dim, kProductGate * t.weight});
    n.gate.push_back({constantDim(), float(kProductGate * gate.constant)});
    n.up = v.terms;
    if (v.constant != 0) n.up.push_back({constantDim(), float(v.constant)});
    for (const Term& t : down) n.down.push_back({t.dim, t.weight / kProductGate});
    m_layers.at(size_t(layer)).mlp.push_back(n);
}

void Circuit::linear(int layer, const Linear& v, const std::vector<Term>& down) {
    Neuron n;
    n.gate = {{constantDim(), kProductGate}};  // silu(32) = 32
    n.up = v.terms;
    if (v.constant != 0) n.up.push_back({constantDim(), float(v.constant)});
    for (const Term& t : down) n.down.push_back({t.dim, t.weight / kProductGate});
    m_layers.at(size_t(layer)).mlp.push_back(n);
}

void Circuit::clear(int layer, int dim) {
    const Feature& f = featureAt(dim);
    linear(layer, Linear{{{dim, -1.f}}, f.base}, {{dim, 1.f}});  // adds base - x
}

Linear Circuit::truthSum(const std::vector<std::pair<int, int>>& weightedTruths, int theta) const {
    Linear b{{}, double(theta)};
    for (auto [dim, w] : weightedTruths) b.add(truth(dim), w);
    return b;
}

void Circuit::threshold(int layer, const std::vector<std::pair<int, int>>& weightedTruths, int theta, int out) {
    step(layer, truthSum(weightedTruths, theta), {{out, -2.0f}});  // true flips +1 to -1
}

void Circuit::xorGate(int layer, int a, int b, int out) {
    // OR adds -2, AND adds +2 back: a xor b flips the slot exactly when OR and not AND
    step(layer, truthSum({{a, 1}, {b, 1}}, -1), {{out, -2.0f}});
    step(layer, truthSum({{a, 1}, {b, 1}}, -2), {{out, 2.0f}});
}

void Circuit::decode(int layer, const std::vector<int>& bits, const std::vector<int>& outs) {
    for (size_t v = 0; v < outs.size(); ++v) {
        // every bit agrees with v: sum over set bits of t_i + sum over clear bits of (1 - t_i) >= n
        std::vector<std::pair<int, int>> terms;
        int ones = 0;
        for (size_t i = 0; i < bits.size(); ++i) {
            bool set = v >> i & 1;
            terms.push_back({bits[i], set ? 1 : -1});
            ones += set;
        }
        threshold(layer, terms, -ones, outs[v]);
    }
}

int MemoryPort::rows() const {
    auto count = [](const std::vector<int>& rows, const std::vector<int>& low) {
        return int(rows.size() * std::max<size_t>(1, low.size()));
    };
    return std::max(count(writeRows, writeRowsLow), count(readRows, readRowsLow));
}

void Circuit::memoryPort(int layer, MemoryPort port) {
    const Geometry& g = m_geometry;
    if (port.head < 0 || port.head >= g.linearNumValueHeads)
        throw std::invalid_argument("memory port on a missing head");
    if (port.rows() > g.linearKeyHeadDim)
        throw std::invalid_argument("a memory port has more rows than the key head dimension");
    // Dual rails put exactly one 1024 per bit in a row: with bits = dv / 4 the head's RMSNorm scale is 2.
    if (4 * int(port.dataBits.size()) != g.linearValueHeadDim || port.outBits.size() != port.dataBits.size())
        throw std::invalid_argument(
            "a memory row holds exactly linear_value_head_dim / 4 bits, read into as many outputs");
    for (int d : port.outBits)
        if (featureAt(d).encoding != Encoding::ReadBit)
            throw std::invalid_argument("memory port " + port.name + " reads into " + featureAt(d).name +
                                        ", which is no read bit (addReadBit)");
    if (g.linearNumKeyHeads <= 0 || g.linearNumValueHeads % g.linearNumKeyHeads)
        throw std::invalid_argument("value heads must be a multiple of key heads");
    int group = g.linearNumValueHeads / g.linearNumKeyHeads;  // value heads sharing one key head
    for (const auto& other : m_layers.at(size_t(layer)).ports)
        if (other.head / group == port.head / group)
            throw std::invalid_argument("two memory ports would share a key head (its keys and queries)");
    m_layers.at(size_t(layer)).ports.push_back(std::move(port));
}

std::vector<float> Circuit::baseEmbedding() const {
    std::vector<float> x(size_t(m_geometry.hiddenSize), 0.f);
    for (int d = 0; d < kConstantDims; ++d) x[size_t(d)] = 1.f;
    for (const auto& [d, owners] : m_owners) x[size_t(d)] = m_features[owners.front()].base;
    for (int d : ballastDims()) x[size_t(d)] = std::ldexp(1.f, kBallastExponent);
    return x;
}

void Circuit::setTrue(std::vector<float>& x, const std::vector<int>& trueDims) const {
    for (int d : trueDims) {
        truth(d);  // throws for an integer
        if (featureAt(d).born != 0)
            throw std::invalid_argument(featureAt(d).name + " is computed by the layers, not set by a token");
        x[size_t(d)] = featureAt(d).base - 2;
    }
}

std::vector<float> Circuit::tokenEmbedding(const std::vector<int>& trueDims,
                                           const std::map<int, float>& integers) const {
    std::vector<float> x = baseEmbedding();
    setTrue(x, trueDims);
    for (auto [d, v] : integers) {
        value(d);  // throws for a bit
        x[size_t(d)] = v;
    }
    return x;
}

BaseRows Circuit::tokenEmbeddings(const std::vector<std::vector<int>>& trueDims) const {
    BaseRows rows(baseEmbedding());
    std::vector<float> row = rows.base();
    for (const auto& dims : trueDims) {
        setTrue(row, dims);  // validates every dim
        std::vector<BaseRows::Change> changes;
        for (int d : dims) changes.push_back({d, row[size_t(d)]});
        std::sort(changes.begin(), changes.end());
        changes.erase(std::unique(changes.begin(), changes.end()), changes.end());
        rows.add(std::move(changes));
        for (int d : dims) row[size_t(d)] = rows.base()[size_t(d)];
    }
    return rows;
}

}  // namespace qgpu::circuit
