// Text generation with a Qwen35Model: the prompt in one prefill, then one decode step per token, each token
// chosen by the sampler (Sampler.h), streamed to a callback as complete UTF-8 text, until a stop token, the
// token limit or a cancellation. Torch-free header.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "qgpu/runtime/Qwen35Model.h"
#include "qgpu/runtime/text/Sampler.h"
#include "qgpu/runtime/text/Tokenizer.h"

namespace qgpu {

struct GenerationOptions {
    int maxNewTokens = 256;
    text::SamplingParams sampling;
    text::StopTokens stop;
    // Read before the first token and after each one; set it from another thread or a signal handler.
    const std::atomic<bool>* cancel = nullptr;
    // Teacher forcing (tests, replays): when not empty, the i-th token chosen is forced[i], not the sampler's
    // pick; the model still reads each one and the stop tokens and limit apply. Past its end: the sampler.
    std::vector<int> forced;
};

struct GenerationResult {
    enum StopReason { StopToken, MaxTokens, Cancelled };

    // Every token chosen, a final stop token included. The state has seen the prompt and all of these but
    // the last: the last token's logits are never needed, so it is not fed.
    std::vector<int> tokens;
    std::string text;  // the callback's pieces concatenated: stop tokens excluded, never half a character
    StopReason reason = MaxTokens;
    double prefillSeconds = 0;  // the prompt's forward call
    double decodeSeconds = 0;   // everything after it: sampling, decode steps, callbacks

    // Tokens per second of the decode phase: the first token comes from the prefill's logits.
    double decodeTokensPerSecond() const {
        return tokens.size() > 1 && decodeSeconds > 0 ? double(tokens.size() - 1) / decodeSeconds : 0;
    }
};

// Called once per chosen token with the complete text it adds: possibly empty (a character still open, a
// stop token), or several characters. The piece of the last token also carries a final U+FFFD for bytes
// that never completed a character. Return false to cancel; the bytes of a character still open then are
// dropped.
using TokenCallback = std::function<bool(int token, const std::string& textPiece)>;

// Feeds `prompt` (not empty) after what `state` has seen and generates. Without a tokenizer the pieces and
// the text are empty. Throws std::invalid_argument for an empty prompt.
GenerationResult generate(const Qwen35Model& model, ModelState& state, const std::vector<int>& prompt,
                          const GenerationOptions& options, const text::Tokenizer* tokenizer,
                          const TokenCallback& onToken = {});

}  // namespace qgpu
