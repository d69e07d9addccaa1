// The sparse engine on an ordinary Qwen3.5 model of Gated DeltaNet layers (random dense weights, not a
// circuit): it reads embed_tokens.weight into rows over a base (here every row differs everywhere) and its
// logits agree with the LibTorch model's up to float rounding, token after token, and greedy() picks their
// argmax.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "CircuitTestSupport.h"
#include "TinyConfig.h"
#include "qgpu/runtime/Safetensors.h"
#include "qgpu/runtime/SparseModel.h"

using namespace qgpu;

namespace {

// A random two-layer model, saved, and the sparse engine built from its checkpoint.
struct RandomModel {
    explicit RandomModel(uint64_t seed)
        : dense(Qwen35Model::random(config, seed)), dir(qgpu::testing::tempDir("sparse-random")) {
        dense->save(dir.string());
        Checkpoint checkpoint(dir.string());
        sparse = SparseModel::fromTensors(config, [&](const std::string& name, const std::vector<int64_t>& shape) {
            return checkpoint.require(name, shape).toFloat();
        });
    }
    ~RandomModel() { std::filesystem::remove_all(dir); }

    Qwen35Config config = qgpu::testing::tinyConfig({LayerType::LinearAttention, LayerType::LinearAttention});
    std::unique_ptr<Qwen35Model> dense;  // after config, which it is made from
    std::filesystem::path dir;
    std::unique_ptr<SparseModel> sparse;
};

}  // namespace

TEST(SparseModel, ARandomModelsLogitsAgreeWithTheDensePath) {
    RandomModel model(7);
    auto& dense = model.dense;
    auto& sparse = model.sparse;
    ModelState denseState = dense->newState();
    SparseModel::State sparseState = sparse->newState(), greedyState = sparse->newState();
    for (int token : {3, 17, 42, 0, 49, 17, 17, 8}) {
        SCOPED_TRACE(token);
        std::vector<float> want = dense->forward({token}, denseState), got = sparse->forward(token, sparseState);
        ASSERT_EQ(got.size(), want.size());
        float scale = 0, worst = 0;
        for (size_t i = 0; i < want.size(); ++i) {
            scale = std::max(scale, std::abs(want[i]));
            worst = std::max(worst, std::abs(got[i] - want[i]));
        }
        EXPECT_GT(scale, 0.f);
        EXPECT_LE(worst, 1e-4f * scale);
        long best = std::max_element(got.begin(), got.end()) - got.begin();
        EXPECT_EQ(best, std::max_element(want.begin(), want.end()) - want.begin());
        EXPECT_EQ(sparse->greedy(token, greedyState), best);
    }
}

TEST(SparseModel, TwoThreadsGiveTheSameLogitsBitForBit) {
    RandomModel model(11);
    auto& sparse = model.sparse;
    auto logitsOf = [&](int threads) {
        sparse->setThreads(threads);
        EXPECT_EQ(sparse->threads(), threads);
        SparseModel::State state = sparse->newState();
        std::vector<std::vector<float>> out;
        for (int token : {3, 17, 42, 0, 49, 17, 17, 8}) out.push_back(sparse->forward(token, state));
        return out;
    };
    std::vector<std::vector<float>> one = logitsOf(1), two = logitsOf(2);
    ASSERT_EQ(one.size(), two.size());
    for (size_t i = 0; i < one.size(); ++i)
        EXPECT_EQ(0, std::memcmp(one[i].data(), two[i].data(), one[i].size() * sizeof(float))) << "token " << i;
}

TEST(SparseModel, AProfileCountsEveryTokenAndChangesNoResult) {
    RandomModel model(5);
    auto& sparse = model.sparse;
    SparseModel::State plain = sparse->newState(), profiled = sparse->newState();
    SparseModel::Profile profile;
    const std::vector<int> tokens = {3, 17, 42, 0, 49};
    for (int token : tokens) {
        const std::vector<float> want = sparse->forward(token, plain);
        const int wantNext = sparse->greedy(token, plain);
        sparse->setProfile(&profile);
        const std::vector<float> got = sparse->forward(token, profiled);
        const int gotNext = sparse->greedy(token, profiled);
        sparse->setProfile(nullptr);
        ASSERT_EQ(got.size(), want.size());
        EXPECT_EQ(0, std::memcmp(got.data(), want.data(), got.size() * sizeof(float))) << "token " << token;
        EXPECT_EQ(gotNext, wantNext);
    }
    EXPECT_EQ(profile.tokens, 2 * tokens.size());
    EXPECT_EQ(profile.headTokens, tokens.size()) << "greedy's tokens";
    ASSERT_EQ(profile.layers.size(), size_t(model.config.numLayers));
    double total = profile.head;
    for (const auto& layer : profile.layers)
        for (double seconds : layer) total += seconds;
    EXPECT_GT(total, 0);
    sparse->greedy(1, plain);
    EXPECT_EQ(profile.tokens, 2 * tokens.size()) << "nothing is recorded once the profile is unset";
}
