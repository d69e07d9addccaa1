// Checks of a combined checkpoint against its host, on the dense model (qgpu check-splice).
#pragma once

#include <string>
#include <vector>

#include "qgpu/compiler/gpu/Alphabet.h"
#include "qgpu/runtime/HostSplice.h"
#include "qgpu/runtime/Qwen35Model.h"

namespace qgpu {

// How closely the combined model keeps the host's text distribution over one text sequence.
struct TextFidelity {
    int positions = 0;
    double meanKl = 0, maxKl = 0;  // KL(combined || host) of the next-token distribution, in nats
    double maxChipMass = 0;        // the largest total probability of chip tokens at any text position
    double minChipGap = 0;         // the smallest (best text logit - best chip logit) at any position
};
TextFidelity measureTextFidelity(const Qwen35Model& host, const Qwen35Model& combined, const SpliceLayout& layout,
                                 const std::vector<int>& textTokens);

// A GPU launch in the combined model, as its own sequence (a full-attention host layer would otherwise
// mix text positions into chip ones): the fed tokens and the interpreter's records, chip ids offset by the
// host's vocabulary, in one prefill. The argmax over the whole vocabulary after each position from the
// last fed one must be the record that follows.
struct CombinedReplay {
    long firstMismatch = -1;  // the record index (into `records`) first mispredicted; -1: none
    int checked = 0;          // records checked
    std::string expected, predicted;
};
CombinedReplay replayLaunch(const Qwen35Model& combined, const SpliceLayout& layout, const std::vector<gpu::Token>& fed,
                            const std::vector<gpu::Token>& records);

}  // namespace qgpu
