// The host splice (docs/splice.md): a compiled circuit's layers in front of a Qwen3.5 host's, as
// one stock Qwen3.5 checkpoint. The residual is widened: the circuit owns dims [0, C) and its ballast at
// the top, the host's dims sit at [C, C + h), and one text-flag dim keeps chip tokens improbable on text.
// Every circuit weight reads and writes circuit dims only and every host weight host dims only, so a text
// token passes the circuit's layers as exact zeros and a chip token the host's.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "qgpu/compiler/circuit/Circuit.h"
#include "qgpu/compiler/gpu/Alphabet.h"
#include "qgpu/runtime/Safetensors.h"

namespace qgpu {

// A compiled circuit with its token alphabet, built at a given geometry.
struct ChipModel {
    circuit::Circuit circuit;
    BaseRows embeddings;                  // one row per chip token (tied: also its LM head row)
    std::vector<std::string> tokenTexts;  // each chip token's content in the tokenizer
};

struct ChipSource {
    // A width at which `build` fits the circuit when the host's heads and MLP are given: the splice builds
    // there once to learn how many residual dims the circuit uses, then at the combined width.
    int probeWidth = 2048;
    std::function<ChipModel(const circuit::Geometry&)> build;
};

// The compiled GPU (gpu::buildMachine) and its chip tokens, named `<|gpu:EXEC(b3,w0)|>` and so on.
ChipSource gpuChip();

// Where everything sits in the combined model (written beside it as splice.json).
struct SpliceLayout {
    int width = 0;          // H, the combined hidden size
    int circuitDims = 0;    // C: the circuit's dims are [0, C) plus its ballast at the top
    int hostWidth = 0;      // h: the host's dims are [C, C + h)
    int flagDim = 0;        // T = C + h
    int circuitLayers = 0;  // the first layers; the host's follow
    int hostLayers = 0;
    int hostVocab = 0;    // chip token i has id hostVocab + i
    int chipTokens = 0;   //
    float textFlag = 0;   // kappa: every text token's embedding at T
    float chipFlag = 0;   // -W: every chip token's embedding (and LM head row) at T
    float flagGain = 0;   // the final norm's multiplier (1 + w) at T
    float hostScale = 1;  // s: the host's residual is held times s (a power of two) in its dims
    int hostOffset() const { return circuitDims; }
    std::string toJson() const;
    static SpliceLayout parse(const std::string& json, const std::string& fileName);
    static SpliceLayout load(const std::string& dir);  // DIR/splice.json
};
inline constexpr const char* kSpliceFile = "splice.json";

// How a host layer's tensor meets the residual: by its input columns, its output rows, as a residual
// RMSNorm (compensated for the wider mean), or not at all (per-head tensors, copied as they are).
enum class ResidualSide { Columns, Rows, ResidualNorm, None };
// `suffix` is a layer tensor's name after "layers.N."; throws std::out_of_range for a name that is not part
// of a Qwen3.5 text layer.
ResidualSide residualSide(const std::string& suffix);

// The smallest hidden size H that holds C circuit dims, h host dims and the flag below the ballast
// (Circuit::ballastDims: H's odd part after dividing out fours).
int splicedWidth(int circuitDims, int hostWidth);

struct SpliceOptions {
    std::optional<DType> dtype;  // the matrices' dtype; default the host's. Residual norms are always F32.
    std::function<void(const std::string& what, int done, int total)> progress;
};

// Reads the Qwen3.5 checkpoint in `hostDir` (config.json, safetensors, tokenizer.json) and writes the
// combined checkpoint into the new directory `outDir`: config.json with explicit layer_types,
// model.safetensors (streamed tensor by tensor), tokenizer.json with the chip tokens added,
// circuit-layout.json, splice.json and the host's other files. Everything goes into OUT.partial, renamed
// when complete. Throws DiagnosticError naming the place for a bad host or an existing `outDir`.
SpliceLayout spliceHost(const std::string& hostDir, const std::string& outDir, const ChipSource& chip,
                        const SpliceOptions& options = {});

}  // namespace qgpu
