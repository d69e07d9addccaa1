// What a model does with one token, layer by layer, and the residual's layout to read it with: the data
// behind the debugger's layer view and the heatmap's read and written rows.
#pragma once

#include <string>
#include <vector>

namespace qgpu {

// One layer's work on a token: the residual after its mixer and after its MLP, and per value head the
// recurrent-state rows its query read and its key wrote.
struct LayerTrace {
    std::vector<float> afterMixer, afterLayer;
    std::vector<std::vector<int>> rowsRead, rowsWritten;  // [head] -> rows, ascending
};

// One residual dim as the circuit's layout names it. A dim is reused: at layer L it belongs to the field with
// born <= L <= released (released -1: to the last layer).
struct ResidualField {
    enum class Encoding { Bit, ReadBit, Integer };  // docs/circuit.md: a bit is (base - x) / 2
    std::string name;                               // "alu.3", "x7", "t_exec"
    int dim = 0;
    Encoding encoding = Encoding::Bit;
    float base = 1;
    int born = 0, released = -1;
};

struct TokenTrace {
    std::string token;         // the token going in
    size_t writtenBefore = 0;  // the model's tokens before it (the stream position it is read at)
    std::string next;          // the token the model writes after it
    std::vector<LayerTrace> layers;
};

// A field of the residual: the features that share a name but for their last number (a word's bits, a one-hot
// group: "alu.0".."alu.31" is "alu", the inputs "x0".."x31" are "x"), or one feature alone.
struct LayerField {
    std::string name;
    int born = 0;                  // the layer that writes it (0 for a token input: the embedding's)
    int released = -1;             // the last layer that reads it (-1: the last layer)
    bool input = false;            // set by the token's embedding
    std::vector<int> index, dims;  // per feature: its number in the field (bit), its residual dim
    std::vector<size_t> features;  // per feature: where the layout lists it
    // Per feature: the residual its value is read from, where it is final: after the last layer that reads
    // it, or after that layer's mixer when its MLP clears the dim for the next owner.
    std::vector<int> readAt;
    std::vector<bool> readAfterMixer;
    std::vector<float> raw;  // per feature: the residual there
    bool clean = true;       // every bit reads 0 or 1 (integers always do)
    std::string value;       // "0x0000002a = 42", "1", "bits 3, 7", or the raw values
};

// Every field of the layout, each feature decoded from the trace where its value is final.
std::vector<LayerField> decodeFields(const std::vector<ResidualField>& fields, const TokenTrace& trace);

}  // namespace qgpu
