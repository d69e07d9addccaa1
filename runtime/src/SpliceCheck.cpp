#include "qgpu/runtime/SpliceCheck.h"

#include <algorithm>
#include <cmath>

namespace qgpu {

TextFidelity measureTextFidelity(const Qwen35Model& host, const Qwen35Model& combined, const SpliceLayout& layout,
                                 const std::vector<int>& textTokens) {
    ModelState hostState = host.newState(), combinedState = combined.newState();
    std::vector<float> p = host.forward(textTokens, hostState, true);
    std::vector<float> q = combined.forward(textTokens, combinedState, true);
    size_t hv = size_t(layout.hostVocab), cv = hv + size_t(layout.chipTokens);
    TextFidelity f;
    f.positions = int(textTokens.size());
    for (size_t t = 0; t < textTokens.size(); ++t) {
        const float* hp = p.data() + t * hv;
        const float* cq = q.data() + t * cv;
        auto logSumExp = [](const float* x, size_t n) {
            double m = *std::max_element(x, x + n), s = 0;
            for (size_t i = 0; i < n; ++i) s += std::exp(double(x[i]) - m);
            return m + std::log(s);
        };
        // The combined model's distribution given that the next token is text (the chip tokens' mass,
        // which the host gives no probability, is reported apart).
        double zh = logSumExp(hp, hv), zc = logSumExp(cq, hv), kl = 0, chip = 0;
        for (size_t i = 0; i < hv; ++i) {
            double logQ = double(cq[i]) - zc, logP = double(hp[i]) - zh;
            kl += std::exp(logQ) * (logQ - logP);
        }
        double zAll = logSumExp(cq, cv);
        for (size_t i = hv; i < cv; ++i) chip += std::exp(double(cq[i]) - zAll);
        double gap = double(*std::max_element(cq, cq + hv)) - double(*std::max_element(cq + hv, cq + cv));
        f.minChipGap = t == 0 ? gap : std::min(f.minChipGap, gap);
        f.meanKl += kl / double(textTokens.size());
        f.maxKl = std::max(f.maxKl, kl);
        f.maxChipMass = std::max(f.maxChipMass, chip);
    }
    return f;
}

CombinedReplay replayLaunch(const Qwen35Model& combined, const SpliceLayout& layout, const std::vector<gpu::Token>& fed,
                            const std::vector<gpu::Token>& records) {
    std::vector<int> ids;
    for (const auto* part : {&fed, &records})
        for (const gpu::Token& t : *part) ids.push_back(layout.hostVocab + t.id());
    ModelState state = combined.newState();
    std::vector<float> logits = combined.forward(ids, state, true);
    size_t vocab = size_t(layout.hostVocab + layout.chipTokens);
    auto text = [&](int id) {
        return id >= layout.hostVocab ? gpu::Token::fromId(id - layout.hostVocab).text()
                                      : "text token " + std::to_string(id);
    };
    CombinedReplay r;
    for (size_t k = 0; k < records.size(); ++k) {
        const float* row = logits.data() + (fed.size() - 1 + k) * vocab;
        int predicted = int(std::max_element(row, row + vocab) - row);
        ++r.checked;
        if (predicted != layout.hostVocab + records[k].id()) {
            r.firstMismatch = long(k);
            r.expected = records[k].text();
            r.predicted = text(predicted);
            break;
        }
    }
    return r;
}

}  // namespace qgpu
