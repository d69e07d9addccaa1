// Shared by the circuit tests: run emitted layers through Qwen35Model and build operand tokens.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "qgpu/compiler/circuit/Circuit.h"
#include "qgpu/runtime/CircuitCheckpoint.h"
#include "qgpu/runtime/Qwen35Model.h"

namespace qgpu::testing {

inline std::filesystem::path tempDir(const std::string& name) {
    std::filesystem::path d =
        std::filesystem::temp_directory_path() / ("qgpu-circuit-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(d);
    std::filesystem::create_directories(d);
    return d;
}

// One token per input assignment of `inputs` (bit i of the token index = truth of inputs[i]).
inline std::vector<std::vector<float>> assignments(const circuit::Circuit& c, const std::vector<int>& inputs) {
    std::vector<std::vector<float>> rows;
    for (int v = 0; v < (1 << inputs.size()); ++v) {
        std::vector<int> trueDims;
        for (size_t i = 0; i < inputs.size(); ++i)
            if (v >> i & 1) trueDims.push_back(inputs[i]);
        rows.push_back(c.tokenEmbedding(trueDims));
    }
    return rows;
}

// The emitted layers as a model, through a real checkpoint (written, loaded, removed).
inline std::unique_ptr<Qwen35Model> loadCircuit(const circuit::Circuit& c, const std::vector<std::vector<float>>& rows,
                                                DType dtype) {
    std::filesystem::path dir = tempDir("run");
    writeCircuitCheckpoint(dir.string(), c, rows, dtype);
    auto model = Qwen35Model::load(dir.string());
    std::filesystem::remove_all(dir);
    return model;
}

// Runs every token through the emitted model; returns the final residual of each.
inline std::vector<std::vector<float>> run(const circuit::Circuit& c, const std::vector<std::vector<float>>& rows,
                                           DType dtype = DType::F32) {
    auto model = loadCircuit(c, rows, dtype);
    std::vector<std::vector<float>> out;
    ModelState state = model->newState();  // one sequence: each token also sees the ones before it
    for (int t = 0; t < int(rows.size()); ++t) out.push_back(model->hiddenStates({t}, state));
    return out;
}

// All tokens in one prefill (the chunked delta rule): for circuits whose tokens do not depend on each
// other, or to check that a prefill computes what token-by-token decoding does.
inline std::vector<std::vector<float>> runPrefill(const circuit::Circuit& c,
                                                  const std::vector<std::vector<float>>& rows,
                                                  DType dtype = DType::F32) {
    auto model = loadCircuit(c, rows, dtype);
    std::vector<int> tokens(rows.size());
    for (size_t t = 0; t < rows.size(); ++t) tokens[t] = int(t);
    ModelState state = model->newState();
    std::vector<float> flat = model->hiddenStates(tokens, state);
    std::vector<std::vector<float>> out;
    size_t h = size_t(c.geometry().hiddenSize);
    for (size_t t = 0; t < rows.size(); ++t)
        out.emplace_back(flat.begin() + long(t * h), flat.begin() + long((t + 1) * h));
    return out;
}

inline bool truth(float x) { return x == -1.0f; }

// One token per (x, y) case with the bits of x in `a` and of y in `b`.
inline std::vector<std::vector<float>> operandRows(const circuit::Circuit& c, const std::vector<int>& a,
                                                   const std::vector<int>& b,
                                                   const std::vector<std::pair<uint32_t, uint32_t>>& cases) {
    std::vector<std::vector<float>> rows;
    for (auto [x, y] : cases) {
        std::vector<int> trueDims;
        for (int i = 0; i < 32; ++i) {
            if (x >> i & 1) trueDims.push_back(a[size_t(i)]);
            if (y >> i & 1) trueDims.push_back(b[size_t(i)]);
        }
        rows.push_back(c.tokenEmbedding(trueDims));
    }
    return rows;
}

// The value of 32 bit features (bits[i] true <=> bit i set) in a final residual.
inline uint32_t word(const std::vector<float>& residual, const std::vector<int>& bits) {
    uint32_t v = 0;
    for (size_t i = 0; i < bits.size(); ++i) v |= uint32_t(truth(residual[size_t(bits[i])])) << i;
    return v;
}

}  // namespace qgpu::testing
