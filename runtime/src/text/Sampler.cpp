#include "qgpu/runtime/text/Sampler.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace qgpu::text {
namespace {

bool greedy(const SamplingParams& p) { return !(p.temperature > 0.f) || p.topK == 1; }

// The kept tokens with unnormalised weights; sorted most probable first when `sorted` (always when top-k or
// top-p cut), else in id order.
std::vector<std::pair<int, double>> weights(const std::vector<float>& logits, const SamplingParams& p, bool sorted) {
    if (p.topK < 0) throw std::invalid_argument("sampling: top-k must be >= 0");
    int best = argmax(logits);
    float maxLogit = logits[best];
    if (greedy(p) || std::isnan(maxLogit) || std::isinf(maxLogit) || !(p.topP > 0.f))
        return {{best, 1.0}};  // nothing to draw from (all NaN or -inf), or a +inf token that takes it all
    std::vector<int> ids;
    ids.reserve(logits.size());
    for (int i = 0; i < int(logits.size()); ++i)
        if (logits[i] > -std::numeric_limits<float>::infinity()) ids.push_back(i);  // also drops NaN
    auto before = [&](int a, int b) { return logits[a] != logits[b] ? logits[a] > logits[b] : a < b; };
    if (p.topK > 0 && size_t(p.topK) < ids.size()) {
        std::nth_element(ids.begin(), ids.begin() + p.topK - 1, ids.end(), before);
        ids.resize(p.topK);
    }
    bool cut = p.topP < 1.f;
    if (sorted || cut || p.topK > 0) std::sort(ids.begin(), ids.end(), before);
    std::vector<std::pair<int, double>> out;
    out.reserve(ids.size());
    double total = 0;
    for (int id : ids) {
        double w = std::exp((double(logits[id]) - maxLogit) / p.temperature);
        out.push_back({id, w});
        total += w;
    }
    if (cut) {  // the smallest prefix whose probability reaches top-p
        double mass = 0, need = double(p.topP) * total;
        size_t keep = 0;
        while (keep < out.size() && mass < need) mass += out[keep++].second;
        out.resize(std::max<size_t>(keep, 1));
    }
    return out;
}

}  // namespace

int argmax(const std::vector<float>& logits) {
    if (logits.empty()) throw std::invalid_argument("sampling: empty logits");
    int best = 0;
    for (int i = 1; i < int(logits.size()); ++i)
        if (logits[i] > logits[best] || (std::isnan(logits[best]) && !std::isnan(logits[i]))) best = i;
    return best;
}

std::vector<std::pair<int, double>> candidates(const std::vector<float>& logits, const SamplingParams& params) {
    std::vector<std::pair<int, double>> out = weights(logits, params, true);
    double total = 0;
    for (const auto& c : out) total += c.second;
    for (auto& c : out) c.second /= total;
    return out;
}

int sampleToken(const std::vector<float>& logits, const SamplingParams& params, std::mt19937_64& rng) {
    if (greedy(params)) return argmax(logits);
    std::vector<std::pair<int, double>> w = weights(logits, params, false);
    double total = 0;
    for (const auto& c : w) total += c.second;
    double target = double(rng() >> 11) * 0x1.0p-53 * total;  // uniform in [0, total)
    for (const auto& c : w) {
        if (target < c.second) return c.first;
        target -= c.second;
    }
    return w.back().first;  // rounding
}

}  // namespace qgpu::text
