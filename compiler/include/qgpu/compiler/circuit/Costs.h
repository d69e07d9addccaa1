// The cost of every circuit primitive, measured by building it (`qgpu circuit-costs`, docs/circuit.md).
#pragma once

#include <string>
#include <vector>

namespace qgpu::circuit {

struct PrimitiveCost {
    std::string name;
    int layers = 0;
    std::vector<int> neuronsPerLayer;                     // MLP neurons in each of its layers
    int inputDims = 0, outputDims = 0, internalDims = 0;  // residual dimensions
    int heads = 0;                                        // Gated DeltaNet value heads
};

std::vector<PrimitiveCost> primitiveCosts();

}  // namespace qgpu::circuit
