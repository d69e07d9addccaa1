// The float facts an exact circuit stands on, measured on the very LibTorch kernels the model calls
// (vectorised paths: tensors of many elements). docs/substrate.md records them.
#include <gtest/gtest.h>

#include <ATen/ATen.h>

#include <cmath>

namespace {

// Runs `op` over a long tensor (so the vectorised kernel is used) and returns element i of the result.
at::Tensor many(float value, int n = 1024) { return at::full({n}, value); }

}  // namespace

TEST(SubstrateFacts, SiluIsExactlyTheIdentityAboveAndMinusZeroBelow) {
    for (float x : {16.75f, 17.f, 32.f, 128.f, 1000.f, 65536.f, 1048576.f}) {
        at::Tensor y = at::silu(many(x));
        EXPECT_TRUE(at::equal(y, many(x))) << x;
    }
    for (float x : {-88.75f, -89.f, -128.f, -1000.f, -65536.f}) {
        at::Tensor y = at::silu(many(x));
        EXPECT_TRUE(at::equal(y, many(0.f))) << x;
        EXPECT_TRUE(std::signbit(y[0].item<float>())) << "silu(" << x << ") is -0";
    }
    EXPECT_EQ(at::silu(many(0.f))[0].item<float>(), 0.f);
    EXPECT_NE(at::silu(many(16.f))[0].item<float>(), 16.f) << "below the threshold silu is inexact";
}

TEST(SubstrateFacts, ExactStepFromTwoSilus) {
    // silu(K(b+1)) - silu(K b) == K [b >= 0] for integers b and K >= 128
    for (float K : {128.f, 256.f, 1024.f}) {
        at::Tensor b = at::arange(-300, 300, at::kFloat);
        at::Tensor step = at::silu(K * (b + 1)) - at::silu(K * b);
        at::Tensor expect = K * (b >= 0).to(at::kFloat);
        EXPECT_TRUE(at::equal(step, expect)) << "K " << K;
    }
}

TEST(SubstrateFacts, SigmoidExpSoftplusSaturateExactly) {
    EXPECT_TRUE(at::equal(at::sigmoid(many(17.f)), many(1.f)));
    EXPECT_TRUE(at::equal(at::sigmoid(many(32.f)), many(1.f)));
    EXPECT_TRUE(at::equal(at::sigmoid(many(-89.f)), many(0.f)));
    EXPECT_TRUE(at::equal(at::exp(many(-104.f)), many(0.f)));
    EXPECT_TRUE(at::equal(at::softplus(many(-110.f)), many(0.f)));
    // No decay: A_log <= -110 makes g = -exp(A_log) * softplus(...) zero and exp(g) one
    at::Tensor g = -at::exp(many(-110.f)) * at::softplus(many(5.f));
    EXPECT_TRUE(at::equal(at::exp(g), many(1.f)));
}

TEST(SubstrateFacts, OneHotSurvivesL2NormAndPowersOfFourSurviveRmsNorm) {
    for (float amp : {8.f, 32.f, 1024.f}) {
        at::Tensor x = at::zeros({16, 128});
        for (int i = 0; i < 16; ++i) x[i][i * 5] = amp;
        at::Tensor n = x * at::rsqrt(x.pow(2).sum(-1, true) + 1e-6);
        EXPECT_TRUE(at::equal(n, (x != 0).to(at::kFloat))) << amp;
    }
    // mean(x^2) = 64 over 2048 dims: eps is absorbed and rsqrt is exactly 1/8
    at::Tensor x = at::full({4, 2048}, 8.f);
    at::Tensor s = at::rsqrt(x.pow(2).mean(-1, true) + 1e-6);
    EXPECT_TRUE(at::equal(s, at::full({4, 1}, 0.125f)));
    at::Tensor one = at::rsqrt(at::full({4, 1}, 1.f) + 1e-6);
    EXPECT_FALSE(at::equal(one, at::full({4, 1}, 1.f))) << "at mean square 1 eps makes the norm inexact";
}

TEST(SubstrateFacts, OneHotKeysOverwriteAStateRowExactlyWhenValuesAreIntegers) {
    // S *= 1; m = S^T k; S += k (beta (v - m))^T with beta = 1 and k = e_r replaces row r only -- exactly
    // only when s + (v - s) == v, true for integers (|x| < 2^23) but not for arbitrary floats.
    at::Tensor S = at::randint(-1000, 1000, {4, 128, 128}).to(at::kFloat);
    at::Tensor k = at::zeros({4, 128});
    for (int h = 0; h < 4; ++h) k[h][10 + h] = 1.f;
    at::Tensor v = at::randint(-1000, 1000, {4, 128}).to(at::kFloat);
    at::Tensor m = at::bmm(k.unsqueeze(1), S);
    at::Tensor next = S + at::bmm(k.unsqueeze(2), (v.unsqueeze(1) - m));
    for (int h = 0; h < 4; ++h) {
        EXPECT_TRUE(at::equal(next[h][10 + h], v[h])) << "row written";
        at::Tensor others = at::cat({next[h].slice(0, 0, 10 + h), next[h].slice(0, 11 + h)});
        at::Tensor before = at::cat({S[h].slice(0, 0, 10 + h), S[h].slice(0, 11 + h)});
        EXPECT_TRUE(at::equal(others, before)) << "other rows bit-identical";
    }
}

TEST(SubstrateFacts, ArbitraryFloatsAreNotOverwrittenExactly) {
    at::Tensor s = at::full({1}, 0.1f), v = at::full({1}, 3.3e-8f);
    EXPECT_FALSE(at::equal(s + (v - s), v)) << "the delta rule's overwrite is exact only for well-behaved values";
}

TEST(SubstrateFacts, HugeBallastMakesTheRmsNormExactForAnySmallFeatures) {
    // The circuit's ballast at Qwen3.5-2B width: two dims at 2^40, sum of squares 2^81, whose half ulp
    // (2^57) absorbs the energy of any features below 2^24 each; mean = 2^70, rsqrt = 2^-35 exactly, so
    // a projection scaled by 2^35 sees every feature exactly.
    at::Tensor x = at::randint(-(1 << 22), 1 << 22, {64, 2048}).to(at::kFloat);
    x.slice(1, 0, 1024).remainder_(3).sub_(1);  // bits and small integers beside big ones
    x.select(1, 2046).fill_(std::ldexp(1.f, 40));
    x.select(1, 2047).fill_(std::ldexp(1.f, 40));
    at::Tensor normed = x * at::rsqrt(x.pow(2).mean(-1, true) + 1e-6) * (1 + at::zeros({2048}));
    EXPECT_TRUE(at::equal(normed * std::ldexp(1.f, 35), x));
}
