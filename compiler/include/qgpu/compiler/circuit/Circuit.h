// The circuit compiler: named residual features with their encodings, exact MLP gadgets built on the
// SiLU step and on SwiGLU's product, memory ports on Gated DeltaNet heads, emitted as the weights of stock
// Qwen3.5 decoder layers (docs/circuit.md).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "qgpu/core/BaseRows.h"

namespace qgpu::circuit {

// A residual dimension with a weight (sparse rows of the projection matrices).
struct Term {
    int dim = 0;
    float weight = 0;
};

// An affine function of the residual on circuit tokens: constant + sum weight * x[dim]. The constant
// rides on the constant feature (dim 0), so on a text token (all circuit dims zero) it is zero too.
struct Linear {
    std::vector<Term> terms;
    double constant = 0;

    Linear& add(const Linear& other, double scale = 1);
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
    std::string name;  // the layout file names rows "name[r]"
    int head = 0;
    std::vector<int> writeRows, dataBits, readRows;  // bit features
    std::vector<int> outBits;                        // read-bit features (addReadBit)
    // Optional bits that gate every write key / read query: row r is keyed by (row bit r AND select),
    // computed by the conv's silu (128 (t_r + t_s - 1) is 128, 0 or -128, and silu makes that 128, 0, -0).
    // Several ports can then share one row one-hot and differ only in their select bit.
    int writeSelect = -1, readSelect = -1;
    // Optional second factors of the rows: with n of them, row r = hi * n + lo is keyed by (writeRows[hi] AND
    // writeRowsLow[lo]) (the conv's silu again), so 8 + 16 bits address 128 rows.
    std::vector<int> writeRowsLow, readRowsLow;
    // Which token's data bits a write stores: 0 the writing token's, 1 the token before it (the conv's
    // previous tap; a launch's first token writes a row that reads all false).
    int dataTap = 0;
    int rows() const;  // how many state rows the port addresses
};

struct Layer {
    std::vector<Neuron> mlp;
    std::vector<MemoryPort> ports;  // heads without a port stay silent (all-zero projections)
};

// A tensor of a stock Qwen3.5 checkpoint, named as in `model.` text checkpoints without the prefix. A
// sparse one (Circuit::emit's large matrices, on request) holds no `values` but its non-zero entries:
// (row-major flat index, weight), ascending and unique.
struct NamedTensor {
    std::string name;
    std::vector<int64_t> shape;
    std::vector<float> values;
    bool sparse = false;
    std::vector<std::pair<int64_t, float>> entries;
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

// How a feature's value encodes what it means. A bit is `base - 2 t` for its truth t: base 1 (bipolar,
// +1 false, -1 true) for computed bits, base 64 for read bits (see addReadBit). An integer is itself.
enum class Encoding { Bit, ReadBit, Integer };

// A named value in a residual dimension over a range of layers. A dimension may hold several features
// one after another (slot reuse): a feature is written from layer `born` on, read up to layer `released`,
// and a later feature of the same encoding may take the slot from layer released + 1.
struct Feature {
    std::string name;
    int dim = 0;
    Encoding encoding = Encoding::Bit;
    float base = 1;     // the value a circuit token starts with (and a reused slot is cleared to)
    int born = 0;       // the first layer that writes it (0: also set by the token embedding)
    int released = -1;  // the last layer that reads it; -1: live to the end
};

// The residual on circuit tokens holds the constant 1 (dim 0), the features, and a huge ballast in the
// top dimensions (a few dims at 2^40). The ballast's energy absorbs every feature's in fp32, so each
// RMSNorm multiplies by the same exact power of two whatever the features hold; the input projections
// are scaled by its inverse, and every consumer sees the residual exactly. Features may therefore hold
// integers (up to about 2^24) as well as bits.
class Circuit {
public:
    static constexpr float kStep = 128;        // K of the step silu(K(b+1)) - silu(K b) = K [b >= 0]
    static constexpr float kProductGate = 32;  // silu(32 t) = 32 t for a truth t: the exact masked product
    static constexpr float kReadBase = 64;     // a read bit is 64 (false) or 62 (true)
    static constexpr int kBallastExponent = 40;
    // Dims 0..2 all hold 1 on circuit tokens (0 on text). The IR puts constants on dim 0; emission splits
    // each constant weight over the three into parts of 8 significant bits, so bf16 holds them exactly.
    static constexpr int kConstantDims = 3;

    explicit Circuit(Geometry geometry);

    const Geometry& geometry() const { return m_geometry; }
    int constantDim() const { return 0; }
    // A bipolar bit, false on a fresh token, first written in layer `born`: it takes a released slot of
    // the same encoding where one is free (clearing it in layer `born`, one neuron), else a new dimension.
    // Throws std::length_error when the residual is full.
    int addFeature(const std::string& name, int born = 0);
    // An integer feature, 0 on a fresh token (slots as for addFeature).
    int addInteger(const std::string& name, int born = 0);
    // No layer after `lastLayer` reads the feature that now holds `dim`: its slot becomes reusable.
    void release(int dim, int lastLayer);
    // Residual dimensions in use (constants and features; the ballast sits at the top).
    int dimsUsed() const { return m_nextDim; }
    // A bit that a memory read writes: 64 when false; a read of a true bit adds about -2 (a few ulps off,
    // because the query carries 128^-0.5) and at magnitude 62..64 fp32 rounding snaps it to exactly 62.
    // With `born` (the layer whose mixer writes it) it may take a released read bit's slot, cleared in the
    // layer before.
    int addReadBit(const std::string& name, int born = 0);
    int feature(const std::string& name) const;                          // dimension of a named feature, -1 if absent
    const std::vector<Feature>& features() const { return m_features; }  // every owner of every slot
    // The first feature of a dimension (the one the token embedding sets); throws std::invalid_argument
    // for a dim that is no feature.
    const Feature& featureAt(int dim) const;
    std::vector<int> ballastDims() const;

    // Affine views of features: the truth (0 or 1) of a bit, the value of an integer, and
    // sum w_i t_i + theta over the truths of bits.
    Linear truth(int dim) const;
    Linear value(int dim) const;
    Linear truthSum(const std::vector<std::pair<int, int>>& weightedTruths, int theta) const;

    int addLayer();
    int layerCount() const { return int(m_layers.size()); }
    const Layer& layer(int i) const { return m_layers[size_t(i)]; }

    // --- neuron-level primitives (every other gadget is built from these) ---
    // adds down * [b >= 0]; b must be an integer on every circuit token (two neurons)
    void step(int layer, const Linear& b, const std::vector<Term>& down);
    // adds down * t * v for the truth t of `bit`; v integer-valued and |32 v| < 2^24 (one neuron)
    void maskedProduct(int layer, int bit, const Linear& v, const std::vector<Term>& down);
    // adds down * v (one neuron); with down = -1 on v's own feature it clears the feature back to 0
    void linear(int layer, const Linear& v, const std::vector<Term>& down);
    // puts a feature back to its base value so its slot can be reused after its last reader (one neuron)
    void clear(int layer, int dim);

    // --- boolean gadgets over truths ---
    // out := [sum_i w_i t_i + theta >= 0] where t_i in {0,1} is the truth of bit dims[i]. Two neurons in
    // `layer`; `out` must still be false when the layer runs.
    void threshold(int layer, const std::vector<std::pair<int, int>>& weightedTruths, int theta, int out);
    void andGate(int layer, int a, int b, int out) { threshold(layer, {{a, 1}, {b, 1}}, -2, out); }
    void orGate(int layer, int a, int b, int out) { threshold(layer, {{a, 1}, {b, 1}}, -1, out); }
    void notGate(int layer, int a, int out) { threshold(layer, {{a, -1}}, 0, out); }
    void xorGate(int layer, int a, int b, int out);  // OR minus AND, four neurons
    // outs[v] := [the bits (little-endian truths) spell v], one-hot over the outs
    void decode(int layer, const std::vector<int>& bits, const std::vector<int>& outs);

    // --- 32-bit arithmetic over little-endian bits (compiler/src/circuit/Arithmetic.cpp) ---
    // out := a + b (or a - b) mod 2^32, in layers first..first+2: carries of the low half, carries of
    // the high half (with the low half's carry), then every sum bit as the parity of a_i, b_i and c_i.
    // Allocates its carry slots under `name`.
    void add32(int first, const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& out,
               bool subtract, const std::string& name);
    // out := [a >= b] (two's complement when isSigned), in layers first and first+1.
    void greaterOrEqual32(int first, const std::vector<int>& a, const std::vector<int>& b, int out, bool isSigned,
                          const std::string& name);
    // out := [a == b], in layers first and first+1.
    void equal32(int first, const std::vector<int>& a, const std::vector<int>& b, int out, const std::string& name);
    // out_i := c ? x_i : y_i, one layer: the two cases are exclusive, so each flips the slot on its own.
    void select(int layer, int c, const std::vector<int>& x, const std::vector<int>& y, const std::vector<int>& out);
    // out := max(a, b) or min(a, b), signed or unsigned, in layers first..first+2 (compare, then select).
    void minMax32(int first, const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& out,
                  bool isMax, bool isSigned, const std::string& name);
    enum class Shift { Left, RightLogical, RightArithmetic };
    // out := a shifted by the unsigned 32-bit amount (>= 32 gives 0, or the sign for RightArithmetic),
    // in layers first and first+1.
    void shift32(int first, Shift kind, const std::vector<int>& a, const std::vector<int>& amount,
                 const std::vector<int>& out, const std::string& name);
    // out := a * b mod 2^32, in layers first..first+2: per output bit k an integer of the partial
    // products that reach bit k (SwiGLU masked products), then each bit as an alternating sum of steps.
    void multiply32(int first, const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& out,
                    const std::string& name);

    // A register-file-like memory on one head; throws std::invalid_argument when it does not fit the head.
    void memoryPort(int layer, MemoryPort port);

    // The residual a circuit token starts with: constant 1, the given bits true, the given integers set,
    // every other feature at its base, and the ballast.
    std::vector<float> tokenEmbedding(const std::vector<int>& trueDims,
                                      const std::map<int, float>& integers = {}) const;
    // Many tokens' rows at once (bits only), each as tokenEmbedding makes it, kept as changes to the base.
    BaseRows tokenEmbeddings(const std::vector<std::vector<int>>& trueDims) const;

    // --- emission (compiler/src/circuit/Emit.cpp) ---
    // All weights of the layers as stock Qwen3.5 tensors (linear-attention layers with silent mixers),
    // plus embed_tokens for the given token rows and the final norm. With `sparseMatrices` the large
    // matrices (in_proj_qkv, in_proj_z, out_proj and the MLP's) come as entries: the same weights, without
    // gigabytes of zeros.
    std::vector<NamedTensor> emit(const std::vector<std::vector<float>>& embeddingRows,
                                  bool sparseMatrices = false) const;
    int intermediateNeeded() const;
    // The final norm's weights (zero-centred); default all 0. The GPU keeps only its output code dims.
    void setFinalNorm(std::vector<float> weights) { m_finalNorm = std::move(weights); }
    // The multiplier that undoes every residual RMSNorm's exact scale (a power of two).
    double inputScale() const;
    // The layout file: every residual feature (name, dim, encoding, base), the ballast, and every state
    // head, row and column range a memory port uses, as JSON text.
    std::string layoutJson() const;

private:
    std::vector<float> baseEmbedding() const;  // constants, every feature at its base, the ballast
    void setTrue(std::vector<float>& x, const std::vector<int>& trueDims) const;
    int allocate(const std::string& name, Encoding encoding, float base, int born);
    void releaseAll(const std::vector<int>& dims, int lastLayer);  // skips -1 entries
    // Truth-weighted terms sum_j sign * 2^(j - lo) t_j over bits [lo, lo + 16) of v; the sign bit of a
    // signed operand counts negatively.
    void halfTerms(const std::vector<int>& v, int lo, int sign, bool isSigned,
                   std::vector<std::pair<int, int>>& terms) const;
    void emitPort(const MemoryPort& port, NamedTensor& qkv, NamedTensor& z, NamedTensor& b, NamedTensor& conv,
                  NamedTensor& outProj) const;

    static constexpr float kKeyAmplitude = 32;        // one-hot keys and queries: l2norm makes them exact units
    static constexpr float kGatedKeyAmplitude = 128;  // gated keys: silu(-128) is -0, silu(128) is 128
    static constexpr float kRowAmplitude = 1024;      // a stored true rail
    static constexpr float kReadNormWeight = 1.f / 32;

    Geometry m_geometry;
    std::vector<Feature> m_features;              // in allocation order
    std::map<int, std::vector<size_t>> m_owners;  // dim -> indices into m_features, oldest first
    std::map<std::string, int> m_byName;
    int m_nextDim = kConstantDims;
    std::vector<Layer> m_layers;
    std::vector<float> m_finalNorm;
};

}  // namespace qgpu::circuit
