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

struct Layer {
    std::vector<Neuron> mlp;  // the Gated DeltaNet mixer stays silent (all-zero projections) for now
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
// dimensions filling it up, mean(x^2) == 64 exactly, the RMSNorm scale is exactly 1/8 and the norm
// weights (1 + 7) undo it. Consumers then see the residual exactly.
class Circuit {
public:
    static constexpr float kStep = 128;      // K of the step silu(K(b+1)) - silu(K b) = K [b >= 0]
    static constexpr float kMeanSquare = 64;  // residual energy per dimension on circuit tokens

    explicit Circuit(Geometry geometry);

    const Geometry& geometry() const { return m_geometry; }
    int constantDim() const { return 0; }
    // Allocates a bipolar slot; throws std::length_error when the residual is full.
    int addFeature(const std::string& name);
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

    // The residual a circuit token starts with: constant 1, the given slots true, the rest false, ballast.
    std::vector<float> tokenEmbedding(const std::vector<int>& trueDims) const;
    // All weights of the layers as stock Qwen3.5 tensors (linear-attention layers with silent mixers),
    // plus embed_tokens for the given token rows and the final norm.
    std::vector<NamedTensor> emit(const std::vector<std::vector<float>>& embeddingRows) const;
    int intermediateNeeded() const;

private:
    void addNeuronPair(int layer, const std::vector<Term>& gate, float constant, const std::vector<Term>& down);

    Geometry m_geometry;
    std::map<std::string, int> m_features;
    int m_nextDim = 1;
    std::vector<Layer> m_layers;
};

}  // namespace qgpu::circuit
