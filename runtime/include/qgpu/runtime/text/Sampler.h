// Choosing the next token from a logits vector: greedy, or a seeded draw after temperature, top-k and
// top-p (in that order, as Hugging Face's generate applies them). Pure functions over std::vector<float>;
// the same seed and logits give the same tokens on every platform (the draw uses the raw 64-bit
// std::mt19937_64 output, not a library distribution).
#pragma once

#include <cstdint>
#include <random>
#include <unordered_set>
#include <utility>
#include <vector>

namespace qgpu::text {

struct SamplingParams {
    float temperature = 0.f;  // <= 0: greedy
    int topK = 0;             // keep the k most likely tokens; 0: all
    float topP = 1.f;         // then the smallest set holding this much probability; >= 1: all
    uint64_t seed = 0;
};

// The index of the largest logit: the lowest index among equal ones; NaN never wins. Throws
// std::invalid_argument for empty logits.
int argmax(const std::vector<float>& logits);

// The distribution a draw uses: softmax(logits / temperature) over the top-k, cut to the top-p nucleus and
// renormalised, as (token, probability), most probable first (ties: lower id first). Greedy settings give
// the argmax with probability 1. NaN and -inf logits never appear.
std::vector<std::pair<int, double>> candidates(const std::vector<float>& logits, const SamplingParams& params);

// One token. Greedy (temperature <= 0, or top-k 1) draws no random number.
int sampleToken(const std::vector<float>& logits, const SamplingParams& params, std::mt19937_64& rng);

// A sampler with its own generator, seeded from params.seed.
class Sampler {
public:
    explicit Sampler(const SamplingParams& params = {}) : m_params(params), m_rng(params.seed) {}
    int next(const std::vector<float>& logits) { return sampleToken(logits, m_params, m_rng); }
    const SamplingParams& params() const { return m_params; }

private:
    SamplingParams m_params;
    std::mt19937_64 m_rng;
};

// The tokens that end generation (e.g. <|im_end|> and <|endoftext|>): generation stops after sampling
// one, and the stop token itself is not part of the reply's text.
class StopTokens {
public:
    StopTokens() = default;
    explicit StopTokens(const std::vector<int>& ids) : m_ids(ids.begin(), ids.end()) {}
    void add(int id) { m_ids.insert(id); }
    bool contains(int id) const { return m_ids.count(id) != 0; }
    bool empty() const { return m_ids.empty(); }
    size_t size() const { return m_ids.size(); }

private:
    std::unordered_set<int> m_ids;
};

}  // namespace qgpu::text
