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

}  // namespace qgpu
