// The launches conformance.gpu.teacher teaches transformers: a fixed sample of the suite that covers every
// feature of the machine any suite launch exercises (opcodes with their operand forms, fed and written
// record kinds with their forms, ROM, register and memory banks, divergence, barriers), chosen by a
// deterministic greedy cover, and held to a token budget so the label's time stays fixed as the suite grows.
#pragma once

#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/core/Isa.h"
#include "qgpu/core/Launch.h"

namespace qgpu::conformance {

using Features = std::set<std::string>;

// What one launch exercises: `linked` is its program linked against `launch`, `fed` its fed tokens and `ref`
// the interpreter's run.
Features launchFeatures(const Program& linked, const LaunchSpec& launch, const std::vector<gpu::Token>& fed,
                        const gpu::ReferenceLaunch& ref);

struct SampleCandidate {
    std::string name;
    size_t tokens = 0;  // fed and written
    Features features;
};

struct Sample {
    std::vector<size_t> chosen;         // indices into the candidates, in the order the cover took them
    std::vector<Features> newFeatures;  // what each chosen launch added
    size_t tokens = 0;
    size_t featureCount = 0;
};

// Repeatedly takes the launch with the fewest tokens per feature not yet covered (ties: more new features,
// then the earlier candidate) until every feature of every candidate is covered; then drops, last taken
// first, any chosen launch the others cover. The same candidates give the same sample on every run.
Sample coverSample(const std::vector<SampleCandidate>& candidates);

}  // namespace qgpu::conformance
