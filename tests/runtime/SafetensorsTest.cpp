#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/Safetensors.h"

using namespace qgpu;
namespace fs = std::filesystem;

namespace {

fs::path tempDir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("qgpu-st-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const DiagnosticError& e) {
        return e.what();
    }
    return "";
}

void writeRaw(const fs::path& p, const std::string& header, size_t dataBytes) {
    std::ofstream out(p, std::ios::binary);
    uint64_t len = header.size();
    out.write(reinterpret_cast<const char*>(&len), 8);
    out << header << std::string(dataBytes, '\0');
}

uint16_t bits16(const TensorData& t, size_t i) {
    uint16_t h;
    std::memcpy(&h, &t.bytes[2 * i], 2);
    return h;
}

}  // namespace

TEST(Safetensors, RoundTripsEveryDtypeBitExactly) {
    fs::path d = tempDir("roundtrip");
    std::mt19937 rng(7);
    std::normal_distribution<float> dist(0.f, 3.f);
    std::vector<float> values(6 * 5);
    for (float& v : values) v = dist(rng);
    std::vector<TensorData> tensors;
    for (DType t : {DType::F32, DType::F16, DType::BF16})
        tensors.push_back(TensorData::fromFloat(std::string("w.") + dtypeName(t), {6, 5}, values, t));
    writeSafetensors((d / "m.safetensors").string(), tensors, {{"format", "pt"}});
    SafetensorsFile f((d / "m.safetensors").string());
    ASSERT_EQ(f.tensors().size(), 3u);
    EXPECT_EQ(f.metadata().at("format"), "pt");
    for (const auto& t : tensors) {
        const TensorView* v = f.find(t.name);
        ASSERT_TRUE(v) << t.name;
        EXPECT_EQ(v->shape, t.shape);
        ASSERT_EQ(v->bytes, t.bytes.size());
        EXPECT_EQ(std::memcmp(v->data, t.bytes.data(), v->bytes), 0) << t.name;
    }
    EXPECT_EQ(f.find("w.F32")->toFloat(), values);
    // Re-rounding a widened value gives back the same bits.
    auto bf = f.find("w.BF16")->toFloat();
    EXPECT_EQ(TensorData::fromFloat("x", {30}, bf, DType::BF16).bytes, tensors[2].bytes);
    auto hf = f.find("w.F16")->toFloat();
    EXPECT_EQ(TensorData::fromFloat("x", {30}, hf, DType::F16).bytes, tensors[1].bytes);
    fs::remove_all(d);
}

TEST(Safetensors, HalfAndBfloatConversionsRoundToNearestEven) {
    TensorData h = TensorData::fromFloat(
        "h", {6}, {1.0f, 65504.0f, std::ldexp(1.0f, -24), 1e6f, -2.0f, 1.0f + std::ldexp(1.0f, -11)}, DType::F16);
    EXPECT_EQ(bits16(h, 0), 0x3C00);
    EXPECT_EQ(bits16(h, 1), 0x7BFF);
    EXPECT_EQ(bits16(h, 2), 0x0001);  // smallest subnormal
    EXPECT_EQ(bits16(h, 3), 0x7C00);  // overflow -> inf
    EXPECT_EQ(bits16(h, 4), 0xC000);
    EXPECT_EQ(bits16(h, 5), 0x3C00);  // a tie rounds to even
    TensorData b = TensorData::fromFloat("b", {3}, {1.0f, 1.0f + std::ldexp(1.0f, -8), 1.0f + 3 * std::ldexp(1.0f, -8)},
                                         DType::BF16);
    EXPECT_EQ(bits16(b, 0), 0x3F80);
    EXPECT_EQ(bits16(b, 1), 0x3F80);  // tie to even (down)
    EXPECT_EQ(bits16(b, 2), 0x3F82);  // tie to even (up)
}

TEST(Safetensors, MalformedFilesGiveClearErrors) {
    fs::path d = tempDir("bad");
    writeRaw(d / "trunc.safetensors", R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,16]}})", 8);
    EXPECT_NE(errorOf([&] { SafetensorsFile((d / "trunc.safetensors").string()); }).find("truncated"),
              std::string::npos);
    writeRaw(d / "json.safetensors", R"({"a":{"dtype":"F32",)", 0);
    EXPECT_NE(errorOf([&] { SafetensorsFile((d / "json.safetensors").string()); }).find("malformed"),
              std::string::npos);
    writeRaw(d / "dtype.safetensors", R"({"a":{"dtype":"I64","shape":[1],"data_offsets":[0,8]}})", 8);
    EXPECT_NE(errorOf([&] { SafetensorsFile((d / "dtype.safetensors").string()); }).find("I64"), std::string::npos);
    writeRaw(d / "shape.safetensors", R"({"a":{"dtype":"F32","shape":[3],"data_offsets":[0,16]}})", 16);
    EXPECT_NE(errorOf([&] { SafetensorsFile((d / "shape.safetensors").string()); }).find("disagrees with its shape"),
              std::string::npos);
    for (const char* shape : {"[2.3e82]", "[-4]", "[\"4\"]", "4"}) {  // what the fuzzer found, and its kin
        writeRaw(d / "float.safetensors",
                 std::string(R"({"a":{"dtype":"F32","shape":)") + shape + R"(,"data_offsets":[0,16]}})", 16);
        EXPECT_NE(errorOf([&] { SafetensorsFile((d / "float.safetensors").string()); }).find("\"shape\""),
                  std::string::npos)
            << shape;
    }
    writeRaw(d / "offsets.safetensors", R"({"a":{"dtype":"F32","shape":[4],"data_offsets":[0,1.6e1]}})", 16);
    EXPECT_NE(errorOf([&] { SafetensorsFile((d / "offsets.safetensors").string()); }).find("\"data_offsets\""),
              std::string::npos);
    {
        std::ofstream(d / "huge.safetensors", std::ios::binary)
            << std::string("\xff\xff\xff\xff\xff\xff\x00\x00{}", 10);
    }
    EXPECT_NE(errorOf([&] { SafetensorsFile((d / "huge.safetensors").string()); }).find("truncated"),
              std::string::npos);
    EXPECT_NE(errorOf([&] { SafetensorsFile((d / "missing.safetensors").string()); }).find("cannot open"),
              std::string::npos);
    fs::remove_all(d);
}

TEST(Safetensors, FailedWriteLeavesNothingBehind) {
    fs::path d = tempDir("nowrite");
    std::string path = (d / "no-such-dir" / "m.safetensors").string();
    EXPECT_NE(errorOf([&] { writeSafetensors(path, {TensorData::fromFloat("a", {1}, {1.f})}); }).find("cannot write"),
              std::string::npos);
    EXPECT_FALSE(fs::exists(path));
    EXPECT_FALSE(fs::exists(path + ".tmp"));
    fs::remove_all(d);
}

TEST(Checkpoint, ShardedWithPrefixesAndSkippedTensors) {
    fs::path d = tempDir("sharded");
    writeSafetensors(
        (d / "a.safetensors").string(),
        {TensorData::fromFloat("model.language_model.layers.0.mlp.up_proj.weight", {2, 3}, std::vector<float>(6, 1.f)),
         TensorData::fromFloat("mtp.fc.weight", {1}, {1.f})});
    writeSafetensors((d / "b.safetensors").string(),
                     {TensorData::fromFloat("model.language_model.norm.weight", {3}, {0.f, 1.f, 2.f}, DType::BF16),
                      TensorData::fromFloat("model.visual.blocks.0.w", {1}, {1.f})});
    nlohmann::json index = {{"weight_map",
                             {{"model.language_model.layers.0.mlp.up_proj.weight", "a.safetensors"},
                              {"mtp.fc.weight", "a.safetensors"},
                              {"model.language_model.norm.weight", "b.safetensors"},
                              {"model.visual.blocks.0.w", "b.safetensors"}}}};
    std::ofstream(d / "model.safetensors.index.json") << index.dump();
    Checkpoint ck(d.string());
    EXPECT_EQ(ck.names(), (std::vector<std::string>{"layers.0.mlp.up_proj.weight", "norm.weight"}));
    EXPECT_EQ(ck.require("norm.weight", {3}).toFloat(), (std::vector<float>{0.f, 1.f, 2.f}));
    EXPECT_NE(errorOf([&] { ck.require("norm.weight", {4}); }).find("has shape [3] but the config implies [4]"),
              std::string::npos);
    EXPECT_NE(errorOf([&] {
                  ck.require("embed_tokens.weight", {4, 3});
              }).find("no tensor 'embed_tokens.weight'"),
              std::string::npos);
    fs::remove(d / "b.safetensors");
    EXPECT_NE(errorOf([&] { Checkpoint c(d.string()); }).find("missing"), std::string::npos);
    EXPECT_NE(errorOf([&] { Checkpoint c((d / "nothing").string()); }).find("no model.safetensors"), std::string::npos);
    fs::remove_all(d);
}

TEST(Checkpoint, TextOnlyPrefix) {
    EXPECT_EQ(normaliseTensorName("model.layers.3.linear_attn.A_log"), "layers.3.linear_attn.A_log");
    EXPECT_EQ(normaliseTensorName("lm_head.weight"), "lm_head.weight");
    EXPECT_EQ(normaliseTensorName("mtp.layers.0.x"), "");
}
