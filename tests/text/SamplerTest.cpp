#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "qgpu/runtime/text/Sampler.h"

using namespace qgpu::text;

namespace {

std::vector<float> logitsOf(const std::vector<double>& probs) {
    std::vector<float> out;
    for (double p : probs) out.push_back(float(std::log(p)));
    return out;
}

std::vector<double> frequencies(const std::vector<float>& logits, const SamplingParams& p, int draws) {
    Sampler s(p);
    std::vector<double> f(logits.size(), 0.0);
    for (int i = 0; i < draws; ++i) f[s.next(logits)] += 1.0 / draws;
    return f;
}

}  // namespace

TEST(Sampler, GreedyTakesTheFirstLargest) {
    EXPECT_EQ(argmax({0.1f, 3.f, -1.f, 3.f}), 1);
    float nan = std::numeric_limits<float>::quiet_NaN();
    EXPECT_EQ(argmax({nan, -5.f, nan}), 1);
    Sampler greedy({0.f, 0, 1.f, 7});
    EXPECT_EQ(greedy.next({0.5f, 0.2f, 0.9f}), 2);
    EXPECT_THROW(argmax({}), std::invalid_argument);
}

TEST(Sampler, SameSeedSameTokens) {
    std::vector<float> logits = {1.f, 1.2f, 0.8f, 1.1f, 0.2f, 1.0f};
    SamplingParams p{1.f, 0, 1.f, 1234};
    Sampler a(p), b(p);
    std::vector<int> ta, tb;
    for (int i = 0; i < 200; ++i) {
        ta.push_back(a.next(logits));
        tb.push_back(b.next(logits));
    }
    EXPECT_EQ(ta, tb);
    p.seed = 1235;
    Sampler c(p);
    std::vector<int> tc;
    for (int i = 0; i < 200; ++i) tc.push_back(c.next(logits));
    EXPECT_NE(ta, tc);
}

TEST(Sampler, TopKOneAndTinyTopPAreGreedy) {
    std::mt19937 gen(3);
    std::uniform_real_distribution<float> u(-4.f, 4.f);
    for (int round = 0; round < 50; ++round) {
        std::vector<float> logits(64);
        for (float& l : logits) l = u(gen);
        int best = argmax(logits);
        Sampler topK1({1.5f, 1, 1.f, uint64_t(round)}), topP({1.5f, 0, 1e-6f, uint64_t(round)});
        for (int i = 0; i < 5; ++i) {
            EXPECT_EQ(topK1.next(logits), best);
            EXPECT_EQ(topP.next(logits), best);
        }
    }
}

TEST(Sampler, TopKAndTopPKeepTheRightCandidates) {
    std::vector<float> logits = logitsOf({0.1, 0.4, 0.2, 0.3});
    auto c = candidates(logits, {1.f, 2, 1.f, 0});
    ASSERT_EQ(c.size(), 2u);
    EXPECT_EQ(c[0].first, 1);
    EXPECT_EQ(c[1].first, 3);
    EXPECT_NEAR(c[0].second, 0.4 / 0.7, 1e-6);
    c = candidates(logits, {1.f, 0, 0.65f, 0});  // 0.4 + 0.3 reaches 0.65
    ASSERT_EQ(c.size(), 2u);
    EXPECT_NEAR(c[1].second, 0.3 / 0.7, 1e-6);
    c = candidates(logits, {1.f, 0, 0.75f, 0});  // needs the third
    EXPECT_EQ(c.size(), 3u);
    float inf = std::numeric_limits<float>::infinity();
    c = candidates({-inf, 0.f, -inf}, {1.f, 0, 1.f, 0});
    ASSERT_EQ(c.size(), 1u);
    EXPECT_EQ(c[0].first, 1);
}

TEST(Sampler, TemperatureShapesTheDistribution) {
    std::vector<double> probs = {0.5, 0.3, 0.2};
    std::vector<float> logits = logitsOf(probs);
    const int draws = 20000;  // standard error of a frequency <= 0.0036; the bound is ~5 of them
    std::vector<double> f = frequencies(logits, {1.f, 0, 1.f, 42}, draws);
    for (size_t i = 0; i < probs.size(); ++i) EXPECT_NEAR(f[i], probs[i], 0.02) << i;
    // T = 2 flattens: p^(1/2), renormalised.
    double z = std::sqrt(0.5) + std::sqrt(0.3) + std::sqrt(0.2);
    f = frequencies(logits, {2.f, 0, 1.f, 43}, draws);
    for (size_t i = 0; i < probs.size(); ++i) EXPECT_NEAR(f[i], std::sqrt(probs[i]) / z, 0.02) << i;
    // T = 0.25 sharpens: p^4.
    z = std::pow(0.5, 4) + std::pow(0.3, 4) + std::pow(0.2, 4);
    f = frequencies(logits, {0.25f, 0, 1.f, 44}, draws);
    for (size_t i = 0; i < probs.size(); ++i) EXPECT_NEAR(f[i], std::pow(probs[i], 4) / z, 0.02) << i;
}

TEST(Sampler, StopTokensAreASet) {
    StopTokens stop({151645, 151643});
    EXPECT_TRUE(stop.contains(151645));
    EXPECT_FALSE(stop.contains(1));
    stop.add(7);
    EXPECT_TRUE(stop.contains(7));
    EXPECT_EQ(stop.size(), 3u);
    EXPECT_TRUE(StopTokens().empty());
}
