#include "qgpu/runtime/Generator.h"

#include <algorithm>
#include <chrono>
#include <optional>
#include <stdexcept>

namespace qgpu {
namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

}  // namespace

GenerationResult generate(const Qwen35Model& model, ModelState& state, const std::vector<int>& prompt,
                          const GenerationOptions& options, const text::Tokenizer* tokenizer,
                          const TokenCallback& onToken) {
    // An empty prompt would leave no logits to choose the first token from.
    if (prompt.empty()) throw std::invalid_argument("generate: the prompt is empty");
    GenerationResult r;
    text::Sampler sampler(options.sampling);
    std::optional<text::StreamDecoder> decoder;
    if (tokenizer) decoder.emplace(*tokenizer);
    const size_t limit = size_t(std::max(0, options.maxNewTokens));

    // A long prompt is read in pieces, the last one giving the logits: full attention's scores then take
    // [heads, piece, context] floats, not [heads, prompt, context] (gigabytes for a long prompt).
    constexpr size_t kPrefillPiece = 512;
    auto start = std::chrono::steady_clock::now();
    size_t at = 0;
    for (; prompt.size() - at > kPrefillPiece; at += kPrefillPiece)
        model.hiddenStates(std::vector<int>(prompt.begin() + long(at), prompt.begin() + long(at + kPrefillPiece)),
                           state);
    std::vector<float> logits = model.forward(std::vector<int>(prompt.begin() + long(at), prompt.end()), state);
    r.prefillSeconds = secondsSince(start);

    // The flag is read before the first token and then after each token, never between a decode step and
    // the next token: so the state has always read every token but the last (Generator.h).
    auto cancelled = [&] { return options.cancel && options.cancel->load(); };
    start = std::chrono::steady_clock::now();
    if (limit == 0 || cancelled()) {
        r.reason = limit == 0 ? GenerationResult::MaxTokens : GenerationResult::Cancelled;
        r.decodeSeconds = secondsSince(start);
        return r;
    }
    while (true) {
        int token = r.tokens.size() < options.forced.size() ? options.forced[r.tokens.size()] : sampler.next(logits);
        r.tokens.push_back(token);
        bool stop = options.stop.contains(token);
        bool last = stop || r.tokens.size() == limit;
        std::string piece;
        if (decoder) {
            if (!stop) piece = decoder->push(token);
            if (last) piece += decoder->flush();
        }
        r.text += piece;
        bool keepGoing = (!onToken || onToken(token, piece)) && !cancelled();
        if (stop) {
            r.reason = GenerationResult::StopToken;
            break;
        }
        if (!keepGoing) {
            r.reason = GenerationResult::Cancelled;
            break;
        }
        if (last) {
            r.reason = GenerationResult::MaxTokens;
            break;
        }
        logits = model.forward({token}, state);
    }
    r.decodeSeconds = secondsSince(start);
    return r;
}

}  // namespace qgpu
