// The Qwen3.5 model on tiny random checkpoints made here: decode vs prefill, the KV cache, a naive
// Gated DeltaNet written out in plain loops, checkpoint round trips and errors.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/Qwen35Model.h"
#include "TinyConfig.h"

using namespace qgpu;
using qgpu::testing::tinyConfig;
namespace fs = std::filesystem;

namespace {

const std::vector<LayerType> kMixed = {LayerType::LinearAttention, LayerType::LinearAttention,
                                       LayerType::LinearAttention, LayerType::FullAttention};
const std::vector<int> kTokens = {3, 17, 42, 8, 8, 1, 49, 0, 23, 11};

float maxDiff(const std::vector<float>& a, const std::vector<float>& b) {
    EXPECT_EQ(a.size(), b.size());
    float m = 0;
    for (size_t i = 0; i < a.size() && i < b.size(); ++i) m = std::max(m, std::abs(a[i] - b[i]));
    return m;
}

fs::path tempDir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("qgpu-model-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::vector<float> decodeAll(const Qwen35Model& m, ModelState& s, const std::vector<int>& tokens) {
    std::vector<float> all;
    for (int t : tokens) {
        auto l = m.forward({t}, s);
        all.insert(all.end(), l.begin(), l.end());
    }
    return all;
}

}  // namespace

TEST(Qwen35Model, DecodeEqualsPrefillWithinTolerance) {
    for (bool tied : {true, false}) {
        auto m = Qwen35Model::random(tinyConfig(kMixed, tied), 11);
        ModelState a = m->newState(), b = m->newState();
        std::vector<float> decoded = decodeAll(*m, a, kTokens);
        std::vector<float> prefilled = m->forward(kTokens, b, true);
        EXPECT_LT(maxDiff(decoded, prefilled), 1e-4f) << "tied " << tied;
        for (int layer = 0; layer < 3; ++layer)
            EXPECT_LT(maxDiff(a.recurrentState(layer), b.recurrentState(layer)), 1e-5f) << "layer " << layer;
        EXPECT_EQ(a.position(), 10);
    }
}

TEST(Qwen35Model, ChunkedPrefillAcrossChunkBoundariesEqualsDecodeAndTheSequentialRule) {
    // 150 tokens: two full chunks of 64 and a padded one; then the same split over two prefill calls.
    std::vector<int> tokens;
    for (int i = 0; i < 150; ++i) tokens.push_back((i * 37 + 5) % 50);
    auto m = Qwen35Model::random(tinyConfig(kMixed), 12);
    ModelState decoded = m->newState(), chunked = m->newState(), split = m->newState(), sequential = m->newState();
    std::vector<float> byToken = decodeAll(*m, decoded, tokens);
    ASSERT_EQ(m->prefillDeltaRule(), DeltaRule::Chunked);
    std::vector<float> byChunks = m->forward(tokens, chunked, true);
    std::vector<float> bySplit = m->forward({tokens.begin(), tokens.begin() + 70}, split, true);
    std::vector<float> rest = m->forward({tokens.begin() + 70, tokens.end()}, split, true);
    bySplit.insert(bySplit.end(), rest.begin(), rest.end());
    m->setPrefillDeltaRule(DeltaRule::Sequential);
    std::vector<float> bySequential = m->forward(tokens, sequential, true);
    EXPECT_LT(maxDiff(byToken, byChunks), 1e-4f);
    EXPECT_LT(maxDiff(byToken, bySplit), 1e-4f);
    EXPECT_LT(maxDiff(byToken, bySequential), 1e-4f);
    for (int layer = 0; layer < 3; ++layer) {
        EXPECT_LT(maxDiff(decoded.recurrentState(layer), chunked.recurrentState(layer)), 1e-5f) << layer;
        EXPECT_LT(maxDiff(decoded.recurrentState(layer), split.recurrentState(layer)), 1e-5f) << layer;
    }
}

TEST(Qwen35Model, AttentionWithCacheEqualsWithout) {
    auto m = Qwen35Model::random(tinyConfig({LayerType::FullAttention, LayerType::FullAttention}), 5);
    ModelState whole = m->newState(), chunks = m->newState();
    auto all = m->forward(kTokens, whole);
    m->forward({kTokens.begin(), kTokens.begin() + 4}, chunks);
    auto last = m->forward({kTokens.begin() + 4, kTokens.end()}, chunks);
    EXPECT_LT(maxDiff(all, last), 1e-5f);
    // The cache matters: the same last token without its context gives other logits.
    ModelState fresh = m->newState();
    EXPECT_GT(maxDiff(m->forward({kTokens.back()}, fresh), last), 1e-3f);
}

// An independent Gated DeltaNet: plain loops over the weights read back from the saved checkpoint.
TEST(Qwen35Model, GatedDeltaNetMatchesANaiveLoop) {
    Qwen35Config c = tinyConfig({LayerType::LinearAttention});
    auto m = Qwen35Model::random(c, 3);
    fs::path dir = tempDir("naive");
    m->save(dir.string());
    Checkpoint ck(dir.string());
    auto W = [&](const std::string& n) { return ck.find(n)->toFloat(); };
    auto E = W("embed_tokens.weight"), inNorm = W("layers.0.input_layernorm.weight"),
         postNorm = W("layers.0.post_attention_layernorm.weight");
    auto Wqkv = W("layers.0.linear_attn.in_proj_qkv.weight"), Wz = W("layers.0.linear_attn.in_proj_z.weight");
    auto Wb = W("layers.0.linear_attn.in_proj_b.weight"), Wa = W("layers.0.linear_attn.in_proj_a.weight");
    auto conv = W("layers.0.linear_attn.conv1d.weight"), dt = W("layers.0.linear_attn.dt_bias"),
         alog = W("layers.0.linear_attn.A_log");
    auto normW = W("layers.0.linear_attn.norm.weight"), Wout = W("layers.0.linear_attn.out_proj.weight");
    auto Wg = W("layers.0.mlp.gate_proj.weight"), Wu = W("layers.0.mlp.up_proj.weight"),
         Wd = W("layers.0.mlp.down_proj.weight");
    auto finalNorm = W("norm.weight");
    const int H = 32, I = 48, Hk = 2, Hv = 4, dk = 8, dv = 8, KD = Hk * dk, C = 2 * KD + Hv * dv, V = 50;
    auto silu = [](double x) { return x / (1 + std::exp(-x)); };
    auto matvec = [](const std::vector<float>& w, const std::vector<double>& x, int rows) {
        std::vector<double> y(size_t(rows), 0.0);
        int cols = int(x.size());
        for (int r = 0; r < rows; ++r)
            for (int k = 0; k < cols; ++k) y[size_t(r)] += double(w[size_t(r * cols + k)]) * x[size_t(k)];
        return y;
    };
    auto rms = [](std::vector<double> x, const std::vector<float>& w, bool zeroCentred, double eps) {
        double ss = 0;
        for (double v : x) ss += v * v;
        double inv = 1.0 / std::sqrt(ss / double(x.size()) + eps);
        for (size_t i = 0; i < x.size(); ++i) x[i] *= inv * (zeroCentred ? 1.0 + w[i] : w[i]);
        return x;
    };
    std::vector<std::vector<double>> hist;  // conv inputs so far
    std::vector<double> S(static_cast<size_t>(Hv * dk * dv), 0.0);
    ModelState state = m->newState();
    for (int tok : kTokens) {
        std::vector<double> x(E.begin() + tok * H, E.begin() + (tok + 1) * H);
        std::vector<double> xn = rms(x, inNorm, true, 1e-6);
        hist.push_back(matvec(Wqkv, xn, C));
        std::vector<double> qkv(static_cast<size_t>(C), 0.0);
        for (int ch = 0; ch < C; ++ch) {
            for (int j = 0; j < 4; ++j) {
                int t = int(hist.size()) - 1 + j - 3;
                if (t >= 0) qkv[size_t(ch)] += conv[size_t(ch * 4 + j)] * hist[size_t(t)][size_t(ch)];
            }
            qkv[size_t(ch)] = silu(qkv[size_t(ch)]);
        }
        auto b = matvec(Wb, xn, Hv), a = matvec(Wa, xn, Hv), z = matvec(Wz, xn, Hv * dv);
        std::vector<double> y(static_cast<size_t>(Hv * dv));
        for (int h = 0; h < Hv; ++h) {
            int kh = h / (Hv / Hk);
            std::vector<double> q(static_cast<size_t>(dk)), k(static_cast<size_t>(dk)), v(static_cast<size_t>(dv));
            double qn = 0, kn = 0;
            for (int i = 0; i < dk; ++i) {
                q[size_t(i)] = qkv[size_t(kh * dk + i)];
                k[size_t(i)] = qkv[size_t(KD + kh * dk + i)];
                qn += q[size_t(i)] * q[size_t(i)];
                kn += k[size_t(i)] * k[size_t(i)];
            }
            for (int i = 0; i < dk; ++i) {
                q[size_t(i)] *= 1.0 / std::sqrt(qn + 1e-6) / std::sqrt(double(dk));
                k[size_t(i)] *= 1.0 / std::sqrt(kn + 1e-6);
            }
            for (int i = 0; i < dv; ++i) v[size_t(i)] = qkv[size_t(2 * KD + h * dv + i)];
            double beta = 1 / (1 + std::exp(-b[size_t(h)]));
            double g = -std::exp(double(alog[size_t(h)])) * std::log1p(std::exp(a[size_t(h)] + dt[size_t(h)]));
            double* Sh = &S[size_t(h * dk * dv)];
            for (int i = 0; i < dk * dv; ++i) Sh[i] *= std::exp(g);
            for (int j = 0; j < dv; ++j) {
                double mj = 0;
                for (int i = 0; i < dk; ++i) mj += Sh[i * dv + j] * k[size_t(i)];
                for (int i = 0; i < dk; ++i) Sh[i * dv + j] += k[size_t(i)] * beta * (v[size_t(j)] - mj);
            }
            std::vector<double> o(static_cast<size_t>(dv), 0.0);
            for (int j = 0; j < dv; ++j)
                for (int i = 0; i < dk; ++i) o[size_t(j)] += Sh[i * dv + j] * q[size_t(i)];
            o = rms(o, normW, false, 1e-6);
            for (int j = 0; j < dv; ++j) y[size_t(h * dv + j)] = o[size_t(j)] * silu(z[size_t(h * dv + j)]);
        }
        auto mixed = matvec(Wout, y, H);
        for (int i = 0; i < H; ++i) x[size_t(i)] += mixed[size_t(i)];
        auto hn = rms(x, postNorm, true, 1e-6);
        auto g = matvec(Wg, hn, I), u = matvec(Wu, hn, I);
        for (int i = 0; i < I; ++i) g[size_t(i)] = silu(g[size_t(i)]) * u[size_t(i)];
        auto d = matvec(Wd, g, H);
        for (int i = 0; i < H; ++i) x[size_t(i)] += d[size_t(i)];
        auto logitsRef = matvec(E, rms(x, finalNorm, true, 1e-6), V);
        auto logits = m->forward({tok}, state);
        for (int i = 0; i < V; ++i)
            EXPECT_NEAR(logits[size_t(i)], logitsRef[size_t(i)], 1e-4) << "token " << tok << " logit " << i;
    }
    auto Sm = state.recurrentState(0);
    for (size_t i = 0; i < S.size(); ++i) EXPECT_NEAR(Sm[i], S[i], 1e-5);
    fs::remove_all(dir);
}

TEST(Qwen35Model, SaveLoadRoundTripsExactly) {
    fs::path dir = tempDir("roundtrip");
    auto m = Qwen35Model::random(tinyConfig(kMixed, false), 9);
    m->save(dir.string());
    auto loaded = Qwen35Model::load(dir.string());
    ModelState a = m->newState(), b = loaded->newState();
    EXPECT_EQ(m->forward(kTokens, a, true), loaded->forward(kTokens, b, true));
    // bf16: loading widens exactly, so saving again reproduces the file byte for byte
    fs::path d16 = dir / "bf16", again = dir / "again";
    fs::create_directories(d16);
    fs::create_directories(again);
    m->save(d16.string(), DType::BF16);
    Qwen35Model::load(d16.string())->save(again.string(), DType::BF16);
    std::ifstream f1(d16 / "model.safetensors", std::ios::binary), f2(again / "model.safetensors", std::ios::binary);
    EXPECT_TRUE(std::equal(std::istreambuf_iterator<char>(f1), {}, std::istreambuf_iterator<char>(f2)));
    fs::remove_all(dir);
}

TEST(Qwen35Model, RecurrentStateIsReadableAndWritable) {
    auto m = Qwen35Model::random(tinyConfig(kMixed), 2);
    ModelState s = m->newState();
    m->forward(kTokens, s);
    ModelState copy = s.clone();
    std::vector<float> st = s.recurrentState(1);
    ASSERT_EQ(st.size(), 4u * 8 * 8);
    st[5] += 1.0f;
    copy.setRecurrentState(1, st);
    EXPECT_EQ(copy.recurrentState(1), st);
    EXPECT_NE(m->forward({4}, copy), m->forward({4}, s)) << "a written state changes what the model computes";
    EXPECT_THROW(s.recurrentState(3), DiagnosticError);  // full attention has none
}

TEST(Qwen35Model, MissingOrMisshapedCheckpointsAreReported) {
    fs::path dir = tempDir("broken");
    auto m = Qwen35Model::random(tinyConfig(kMixed), 1);
    m->save(dir.string());
    std::string cfg;
    {
        std::ifstream in(dir / "config.json");
        cfg.assign(std::istreambuf_iterator<char>(in), {});
    }
    std::string wider = cfg;
    wider.replace(wider.find("\"intermediate_size\": 48"), 23, "\"intermediate_size\": 64");
    std::ofstream(dir / "config.json") << wider;
    try {
        Qwen35Model::load(dir.string());
        FAIL();
    } catch (const DiagnosticError& e) {
        EXPECT_NE(std::string(e.what()).find("gate_proj.weight' has shape [48, 32] but the config implies [64, 32]"),
                  std::string::npos)
            << e.what();
    }
    std::ofstream(dir / "config.json") << cfg;
    fs::remove(dir / "model.safetensors");
    EXPECT_THROW(Qwen35Model::load(dir.string()), DiagnosticError);
    EXPECT_THROW(m->forward({50}, *std::make_unique<ModelState>(m->newState())), DiagnosticError);
    fs::remove_all(dir);
}

TEST(Qwen35Config, ParsesNestedTextConfigAndLayerTypes) {
    Qwen35Config g = Qwen35Config::geometry2b();
    Qwen35Config back = Qwen35Config::parse(R"({"architectures":["Qwen3_5ForConditionalGeneration"],
        "tie_word_embeddings": true, "text_config": )" +
                                            g.toJson() + "}");
    EXPECT_EQ(back.hiddenSize, 2048);
    EXPECT_EQ(back.layerTypes, g.layerTypes);
    EXPECT_EQ(g.layerTypes[3], LayerType::FullAttention);
    EXPECT_EQ(g.layerTypes[4], LayerType::LinearAttention);
    EXPECT_EQ(back.rotaryDim(), 64);
}

TEST(Qwen35Config, RejectsWhatItCannotRun) {
    auto err = [](const std::string& json) {
        try {
            Qwen35Config::parse(json);
        } catch (const DiagnosticError& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    std::string base = Qwen35Config::geometry2b().toJson();
    EXPECT_NE(err("{").find("malformed JSON"), std::string::npos);
    EXPECT_NE(err(R"({"hidden_size": 8})").find("missing \"num_hidden_layers\""), std::string::npos);
    std::string act = base;
    act.replace(act.find("\"silu\""), 6, "\"gelu\"");
    EXPECT_NE(err(act).find("hidden_act"), std::string::npos);
    std::string layers = base;
    layers.replace(layers.find("\"num_hidden_layers\": 24"), 23, "\"num_hidden_layers\": 20");
    EXPECT_NE(err(layers).find("lists 24 layers"), std::string::npos);
    // Hostile values: each names its field and what it must be.
    auto edited = [&](const std::string& field, const std::string& value) {
        nlohmann::json j = nlohmann::json::parse(base);
        j[field] = nlohmann::json::parse(value);
        return err(j.dump());
    };
    EXPECT_NE(edited("linear_value_head_dim", "100000000")
                  .find("\"linear_value_head_dim\" is 100000000; it must "
                        "be between 1 and 4096"),
              std::string::npos);
    EXPECT_NE(edited("rms_norm_eps", "-1").find("\"rms_norm_eps\" must be between 0 and 1"), std::string::npos);
    EXPECT_NE(edited("rms_norm_eps", "1e30").find("\"rms_norm_eps\" must be between 0 and 1"), std::string::npos);
    EXPECT_NE(edited("rms_norm_eps", "1e39").find("\"rms_norm_eps\" must be a finite number"), std::string::npos);
    EXPECT_NE(edited("rms_norm_eps", "\"small\"").find("\"rms_norm_eps\" must be a finite number, not \"small\""),
              std::string::npos);
    EXPECT_NE(edited("tie_word_embeddings", "1").find("\"tie_word_embeddings\" must be true or false"),
              std::string::npos);
    EXPECT_NE(err(R"({"hidden_size": 1e400})").find("the number 1e400 is out of range"), std::string::npos);
    EXPECT_NE(err(R"({"hidden_size": 8, "hidden_size": 9})").find("given twice"), std::string::npos);
}

TEST(Qwen35Model, AStateNotMadeByTheModelIsRefused) {
    auto m = Qwen35Model::random(tinyConfig(kMixed), 3);
    ModelState empty;
    EXPECT_THROW(m->forward({1}, empty), std::invalid_argument);
    ModelState other = Qwen35Model::random(tinyConfig({LayerType::LinearAttention}), 3)->newState();
    EXPECT_THROW(m->forward({1}, other), std::invalid_argument);
}
