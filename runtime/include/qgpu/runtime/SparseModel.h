// The fast path: a Qwen3.5 model of Gated DeltaNet layers run through its non-zero weights only,
// token by token, touching only the recurrent-state rows its keys and queries address. Plain C++, no
// LibTorch. On compiled circuits every value is an exact integer (or is snapped to one), so it writes the
// same tokens as the dense path; on anything else it agrees with it only up to float rounding.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "qgpu/core/BaseRows.h"
#include "qgpu/core/TokenTrace.h"
#include "qgpu/runtime/IntegerHead.h"
#include "qgpu/runtime/Qwen35Config.h"
#include "qgpu/runtime/StateRows.h"

namespace qgpu {

class HelperThread;

class SparseModel {
public:
    // A row of a layer's recurrent state: head * key dim + row, within the layer.
    struct StateRow {
        int layer = 0, row = 0;
    };
    struct State {
        std::vector<std::vector<float>> conv;  // per layer: [channels, kernel - 1]
        std::vector<StateRows> recurrent;      // per layer: [value heads, key dim, value dim]
        int position = 0;
        // With `logRows` set, each token adds the recurrent rows it wrote to `rowsWritten` (a row may come
        // more than once; the reader clears it), so that a reader learns what changed without comparing
        // the whole state.
        bool logRows = false;
        std::vector<StateRow> rowsWritten;
    };

    // Throws DiagnosticError for a model with full-attention layers (the compiled GPU has none).
    static std::unique_ptr<SparseModel> fromTensors(const Qwen35Config& config, const TensorSource& tensor);
    // The same, where a matrix may come as its non-zero entries instead: (row-major flat index, weight),
    // ascending and unique (circuit::NamedTensor's sparse form), and the token embeddings as rows over a
    // base (embed_tokens.weight is then not asked for). `tensor` gives every other tensor.
    using Entries = std::vector<std::pair<int64_t, float>>;
    using EntrySource = std::function<std::optional<Entries>(const std::string& name)>;
    static std::unique_ptr<SparseModel> fromTensors(const Qwen35Config& config, const TensorSource& tensor,
                                                    const EntrySource& entries,
                                                    std::optional<BaseRows> embeddings = std::nullopt);
    ~SparseModel();

    const Qwen35Config& config() const { return m_config; }
    State newState() const;
    // Feeds one token; returns the logits of the next [vocab].
    std::vector<float> forward(int token, State& state) const;
    // Feeds one token; returns the next token greedy decoding picks (the lowest id among the largest logits,
    // as an argmax over forward's logits), without spreading the logits over the whole vocabulary.
    int greedy(int token, State& state) const;
    // Feeds one token whose next token nobody asks for (a prompt's): forward without the LM head.
    void feed(int token, State& state) const;
    // Feeds one token as greedy() does, recording every layer, and sets `next` to greedy's choice when given.
    // A head's rows read and written are those its query and key weigh at 1/1000 of their largest weight or
    // more (on compiled circuits, the one-hot rows).
    std::vector<LayerTrace> trace(int token, State& state, int* next = nullptr) const;
    size_t nonZeros() const;  // weights it multiplies per token, at most
    // Per layer, the places of State::conv that can hold anything but 0: those of the channels whose conv
    // reads earlier tokens. Every other place stays 0.
    std::vector<std::vector<size_t>> convStateUsed() const;
    // 1, or 2: each layer's channels, heads and neurons split between this thread and a helper (the same
    // results: each unit's arithmetic does not depend on the thread). Default: $QGPU_SPARSE_THREADS, else 1:
    // a layer's phases take microseconds now, and on the 2-core machines measured the helper's handovers
    // cost more than its half saves (docs/bench.md). A run that finds the helper busy goes alone.
    void setThreads(int threads);
    int threads() const;

    // Where the tokens' time goes, summed over the tokens run while it records.
    struct Profile {
        enum Phase { InputNorm, Channels, Heads, OutProjection, PostNorm, Neurons, Down, kPhases };
        static constexpr const char* kPhaseNames[kPhases] = {
            "input norm",          "qkv channels and conv",  "delta rule (heads)", "output projection",
            "post-attention norm", "MLP neurons (gate, up)", "MLP down projection"};
        std::vector<std::array<double, kPhases>> layers;  // seconds, per layer and phase
        double head = 0;                                  // seconds in the final norm and the LM head
        size_t tokens = 0, headTokens = 0;                // tokens run; those whose next token was asked for
    };
    // Records into `profile` while set (nullptr, the default, records nothing). Only while one run at a time
    // uses the model: runs on several threads would race on it. Reading the clock costs about 1% of a token.
    void setProfile(Profile* profile) const { m_profile = profile; }

    struct Layer;

private:
    struct LayerPass;
    SparseModel() = default;
    // The layers: the final residual; each layer recorded into `trace` when given.
    std::vector<float> run(int token, State& state, std::vector<LayerTrace>* trace = nullptr) const;
    std::vector<float> logits(const std::vector<float>& x) const;          // the final norm and the LM head
    int greedyAfter(const std::vector<float>& x) const;                    // greedy's choice from the final residual
    std::vector<float> headInput(const std::vector<float>& x) const;       // the final norm on the head's dims
    std::vector<float> distinctLogits(const std::vector<float>& x) const;  // one per distinct head row
    Qwen35Config m_config;
    BaseRows m_embed;                          // embed_tokens, each row as its changes to a base
    std::vector<float> m_finalGain;            // 1 + the final norm's weights
    std::vector<size_t> m_headDims;            // the dims the final norm keeps
    std::vector<int> m_headRow;                // per token: its row of the head (tokens with equal rows share one)
    std::vector<size_t> m_firstOf;             // per distinct row: its first token (ascending)
    std::optional<IntegerHead> m_integerHead;  // the distinct rows of embed_tokens on those dims, as integers
    std::vector<float> m_head;                 // or, when they are not, as floats, dim-major: [dims, rows]
    std::vector<Layer> m_layers;
    std::unique_ptr<HelperThread> m_helper;
    mutable Profile* m_profile = nullptr;
    mutable std::mutex m_helperUse;
};

}  // namespace qgpu
