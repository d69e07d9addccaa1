// The launches conformance.gpu.teacher teaches transformers: a fixed sample of the suite that covers every
// feature of the machine any suite launch exercises (opcodes with their operand forms, fed and written
// record kinds with their forms, ROM, register and memory banks, divergence, barriers), chosen by a
// deterministic greedy cover, and held to a token budget so the label's time stays fixed as the suite grows.
// A launch is taught up to the end of the warp step that first shows the last feature it was taken for: a
// teacher-forced pass checks every record of a prefix, so the records after it would check nothing new.
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/core/Isa.h"
#include "qgpu/core/Launch.h"

namespace qgpu::conformance {

using Features = std::set<std::string>;
// Each feature a launch exercises, with how many of its records a teacher must check to see it: through the
// end of the warp step where it first shows, or the whole stream for what the fed tokens bring (a program
// or memory word fed is only seen when the launch uses it, and where is not tracked).
using FeatureReach = std::map<std::string, size_t>;

// What one launch exercises: `linked` is its program linked against `launch`, `fed` its fed tokens and `ref`
// the interpreter's run.
FeatureReach launchFeatures(const Program& linked, const LaunchSpec& launch, const std::vector<gpu::Token>& fed,
                            const gpu::ReferenceLaunch& ref);

struct SampleCandidate {
    std::string name;
    size_t fed = 0, records = 0;  // tokens fed, and records in the interpreter's stream
    FeatureReach features;
};

struct SampleChoice {
    size_t candidate = 0;  // index into the candidates
    size_t records = 0;    // the prefix of its stream to teach
    Features added;        // what it adds to the choices before it
};

struct Sample {
    std::vector<SampleChoice> chosen;  // in the order the cover took them
    size_t tokens = 0;                 // fed and taught
    size_t featureCount = 0;
};

// Repeatedly takes the launch and prefix with the fewest tokens (fed and taught) per feature not yet covered
// (ties: more new features, then the earlier candidate, then the shorter prefix) until every feature of every
// candidate is covered; then, last taken first, shortens each prefix to what the others do not cover, and
// drops a launch the others cover. The same candidates give the same sample on every run.
Sample coverSample(const std::vector<SampleCandidate>& candidates);

}  // namespace qgpu::conformance
