// The circuit compiler's first layer: bipolar boolean features in the residual stream and exact MLP
// gadgets built on the SiLU step, emitted as the weights of stock Qwen3.5 decoder layers (docs/circuit.md).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace qgpu::circuit {

// A residual dimension with a weight (sparse rows of the projection matrices).
struct Term {
    int dim = 0;
    float weight = 0;
};

// One SwiGLU neuron: out += down * silu(gate . x) * (up . x).
struct Neuron {
    std::vector<Term> gate, up, down;
};

// A memory port on one Gated DeltaNet value head: a token whose write-row slot r is true overwrites
// state row r with its data bits; a token whose read-row slot r is true reads row r into outBits (the
// read sees the same token's write). Rows hold each bit on two rails (1024 or 0), so every written row
// has the same energy and the head's RMSNorm scales every read by the same exact factor.
struct MemoryPort {
    int head = 0;
    std::vector<int> writeRows, dataBits, readRows;  // bipolar slots
    std::vector<int> outBits;                        // read slots (addReadSlot)
};

struct Layer {
    std::vector<Neuron> mlp;
    std::vector<MemoryPort> ports;  // heads without a port stay silent (all-zero projections)
};

// A tensor of a stock Qwen3.5 checkpoint, named as in `model.` text checkpoints without the prefix.
struct NamedTensor {
    std::string name;
    std::vector<int64_t> shape;
    std::vector<float> values;
};

// The geometry the layers are emitted into (the Qwen3.5 fields that the weights' shapes depend on).
struct Geometry {
    int hiddenSize = 64;
    int intermediateSize = 64;
    int linearNumKeyHeads = 2;
    int linearNumValueHeads = 2;
    int linearKeyHeadDim = 16;
    int linearValueHeadDim = 16;
    int convKernel = 4;
};

// Boolean features are bipolar: +1 is false, -1 is true. Every slot starts at +1 (false) on a circuit
// token, and a layer only ever flips a slot once, so the residual keeps a constant energy: with ballast
// dimensions filling it up, mean(x^2) == 4096 exactly, the RMSNorm scale is exactly 1/64 and the norm
// weights (1 + 63) undo it. Consumers then see the residual exactly.
class Circuit {
public:
    static constexpr float kStep = 128;         // K of the step silu(K(b+1)) - silu(K b) = K [b >= 0]
    static constexpr float kMeanSquare = 4096;  // residual energy per dimension on circuit tokens (a power of 4)
    static constexpr float kReadHigh = 64, kReadLow = 62;  // the two dims of a read slot (see addReadSlot)

    explicit Circuit(Geometry geometry);

    const Geometry& geometry() const { return m_geometry; }
    int constantDim() const { return 0; }
    // Allocates a bipolar slot; throws std::length_error when the residual is full.
    int addFeature(const std::string& name);
    // A read slot: two dims starting at (64, 62); a memory read of a true bit moves them to (62, 64). A
    // read comes back within a few ulps of 2, and at magnitude 62..64 fp32 rounding snaps it exactly; the
    // pair keeps the residual's energy constant. Returns the first dim.
    int addReadSlot(const std::string& name);
    int feature(const std::string& name) const;  // dimension of a named feature, -1 if absent
    const std::map<std::string, int>& features() const { return m_features; }
    int addLayer();
    int layerCount() const { return int(m_layers.size()); }
    const Layer& layer(int i) const { return m_layers[size_t(i)]; }

    // out := [sum_i w_i t_i + theta >= 0] where t_i in {0,1} is the truth of feature dims[i]. Two
    // neurons in `layer`; `out` must still be false when the layer runs (slots are written once).
    void threshold(int layer, const std::vector<std::pair<int, int>>& weightedTruths, int theta, int out);
    void andGate(int layer, int a, int b, int out) { threshold(layer, {{a, 1}, {b, 1}}, -2, out); }
    void orGate(int layer, int a, int b, int out) { threshold(layer, {{a, 1}, {b, 1}}, -1, out); }
    void notGate(int layer, int a, int out) { threshold(layer, {{a, -1}}, 0, out); }
    void xorGate(int layer, int a, int b, int out);  // OR minus AND, four neurons
    // outs[v] := [the bits (little-endian truths) spell v], one-hot over the outs
    void decode(int layer, const std::vector<int>& bits, const std::vector<int>& outs);
    // out := a + b (or a - b) mod 2^32 over little-endian bipolar bits, in layers first..first+2: carries
    // of the low half, carries of the high half (with the low half's carry), then every sum bit as the
    // parity of a_i, b_i and c_i. Carries are thresholds over 16-bit windows so every pre-activation stays
    // an exact fp32 integer. Allocates its carry slots under `name`.
    void add32(int first, const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& out,
               bool subtract, const std::string& name);
    // out := [a >= b] (two's complement when isSigned), in layers first and first+1: per 16-bit half
    // [hi_a - hi_b >= 1], [>= 0], [<= 0] and [lo_a - lo_b >= 0], then ge = [2 gt_hi + ge_hi + le_hi + ge_lo >= 3].
    void greaterOrEqual32(int first, const std::vector<int>& a, const std::vector<int>& b, int out, bool isSigned,
                          const std::string& name);
    // out := [a == b], in layers first and first+1 (both halves' differences >= 0 and <= 0).
    void equal32(int first, const std::vector<int>& a, const std::vector<int>& b, int out, const std::string& name);
    // out_i := c ? x_i : y_i, one layer: the two cases are exclusive, so each flips the slot on its own.
    void select(int layer, int c, const std::vector<int>& x, const std::vector<int>& y, const std::vector<int>& out);
    enum class Shift { Left, RightLogical, RightArithmetic };
    // out := a shifted by the unsigned 32-bit amount (an amount >= 32 gives 0, or the sign for Right-
    // Arithmetic, as docs/isa.md says), in layers first and first+1: the amount decoded to one-hot
    // (32 positions plus "32 or more"), then one exclusive AND per output bit and position.
    void shift32(int first, Shift kind, const std::vector<int>& a, const std::vector<int>& amount,
                 const std::vector<int>& out, const std::string& name);
    // A register-file-like memory on one head; throws std::invalid_argument when it does not fit the head.
    void memoryPort(int layer, MemoryPort port);

    // The residual a circuit token starts with: constant 1, the given slots true, the rest false, ballast.
    std::vector<float> tokenEmbedding(const std::vector<int>& trueDims) const;
    // All weights of the layers as stock Qwen3.5 tensors (linear-attention layers with silent mixers),
    // plus embed_tokens for the given token rows and the final norm.
    std::vector<NamedTensor> emit(const std::vector<std::vector<float>>& embeddingRows) const;
    int intermediateNeeded() const;

private:
    // Truth-weighted terms sum_j sign * 2^(j - lo) t_j over bits [lo, lo + 16) of v; the sign bit of a
    // signed operand counts negatively.
    void halfTerms(const std::vector<int>& v, int lo, int sign, bool isSigned,
                   std::vector<std::pair<int, int>>& terms) const;

    static constexpr float kKeyAmplitude = 32;    // one-hot keys and queries: l2norm makes them exact units
    static constexpr float kRowAmplitude = 1024;  // a stored true rail
    static constexpr float kReadNormWeight = 1.f / 32;
    static constexpr float kNormWeight = 63;  // 1 + 63 undoes the residual RMSNorm's exact 1/64

    void emitPort(const MemoryPort& port, NamedTensor& qkv, NamedTensor& z, NamedTensor& b, NamedTensor& conv,
                  NamedTensor& outProj) const;
    void addNeuronPair(int layer, const std::vector<Term>& gate, float constant, const std::vector<Term>& down);

    Geometry m_geometry;
    std::map<std::string, int> m_features;
    int m_nextDim = 1;
    std::map<int, float> m_initial;  // starting values other than +1 (read slots)
    std::vector<Layer> m_layers;
};

}  // namespace qgpu::circuit
