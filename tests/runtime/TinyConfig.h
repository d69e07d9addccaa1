// A tiny Qwen3.5 geometry for tests that build random models: small dims, both layer types possible.
#pragma once

#include <vector>

#include "qgpu/runtime/Qwen35Config.h"

namespace qgpu::testing {

inline Qwen35Config tinyConfig(std::vector<LayerType> types, bool tied = true, int vocabSize = 50) {
    Qwen35Config c;
    c.hiddenSize = 32;
    c.numLayers = int(types.size());
    c.intermediateSize = 48;
    c.numHeads = 2;
    c.numKvHeads = 1;
    c.headDim = 16;
    c.linearNumKeyHeads = 2;
    c.linearNumValueHeads = 4;
    c.linearKeyHeadDim = 8;
    c.linearValueHeadDim = 8;
    c.vocabSize = vocabSize;
    c.tieWordEmbeddings = tied;
    c.layerTypes = std::move(types);
    return c;
}

}  // namespace qgpu::testing
