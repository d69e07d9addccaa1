// The host model's weight formats and devices: bf16 and 8-bit weights follow the fp32 model, a bf16
// checkpoint loads as bf16 (a file of the same bytes written again), and bad flags and absent devices are
// told clearly.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numeric>

#include "../text/TextTestUtil.h"
#include "TinyConfig.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/Qwen35Model.h"
#include "qgpu/runtime/TorchSetup.h"

using namespace qgpu;
namespace fs = std::filesystem;

namespace {

const std::vector<LayerType> kMixed = {LayerType::LinearAttention, LayerType::LinearAttention,
                                       LayerType::LinearAttention, LayerType::FullAttention};
const std::vector<int> kTokens = {3, 17, 42, 8, 8, 1, 49, 0, 23, 11, 5, 31, 2, 40, 19, 7};

fs::path checkpoint(const std::string& name, DType dtype, bool tied) {
    fs::path d = fs::temp_directory_path() / ("qgpu-weights-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    Qwen35Model::random(qgpu::testing::tinyConfig(kMixed, tied), 5)->save(d.string(), dtype);
    return d;
}

// Pearson correlation of two logit vectors: 1 when they differ only by rounding.
double correlation(const std::vector<float>& a, const std::vector<float>& b) {
    double ma = std::accumulate(a.begin(), a.end(), 0.0) / double(a.size());
    double mb = std::accumulate(b.begin(), b.end(), 0.0) / double(b.size());
    double ab = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        ab += (a[i] - ma) * (b[i] - mb);
        aa += (a[i] - ma) * (a[i] - ma);
        bb += (b[i] - mb) * (b[i] - mb);
    }
    return ab / std::sqrt(aa * bb);
}

std::string bytesOf(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::vector<float> logits(const Qwen35Model& m, bool allPositions = true) {
    ModelState s = m.newState();
    return m.forward(kTokens, s, allPositions);
}

}  // namespace

TEST(WeightFormat, Bf16And8BitWeightsFollowTheF32Model) {
    for (bool tied : {true, false}) {
        fs::path dir = checkpoint(tied ? "tied" : "untied", DType::BF16, tied);
        auto f32 = Qwen35Model::load(dir.string());
        auto bf16 = Qwen35Model::load(dir.string(), {WeightFormat::BF16});
        auto q8 = Qwen35Model::load(dir.string(), {WeightFormat::Q8});
        EXPECT_EQ(bf16->weightFormat(), WeightFormat::BF16);
        EXPECT_EQ(q8->weightFormat(), WeightFormat::Q8);
        std::vector<float> reference = logits(*f32);
        double cBf16 = correlation(reference, logits(*bf16)), cQ8 = correlation(reference, logits(*q8));
        std::cout << (tied ? "tied" : "untied") << ": logit correlation with f32: bf16 " << cBf16 << ", q8 " << cQ8
                  << "\n";
        EXPECT_GT(cBf16, 0.999);
        EXPECT_GT(cQ8, 0.99);
        EXPECT_LT(cQ8, 1.0);  // the 8-bit weights are really 8-bit
        fs::remove_all(dir);
    }
}

TEST(WeightFormat, An8BitDecodeEqualsItsPrefillWithinRounding) {
    // The activations are quantised per call: one row at a time in a decode, all rows together in a prefill.
    fs::path dir = checkpoint("q8", DType::F32, true);
    auto q8 = Qwen35Model::load(dir.string(), {WeightFormat::Q8});
    ModelState a = q8->newState();
    std::vector<float> decoded;
    for (int t : kTokens) {
        std::vector<float> l = q8->forward({t}, a);
        decoded.insert(decoded.end(), l.begin(), l.end());
    }
    EXPECT_GT(correlation(decoded, logits(*q8)), 0.999);
    fs::remove_all(dir);
}

TEST(WeightFormat, ABf16CheckpointSavesBackByteForByte) {
    fs::path dir = checkpoint("bytes", DType::BF16, false), again = dir / "again";
    fs::create_directories(again);
    Qwen35Model::load(dir.string(), {WeightFormat::BF16})->save(again.string(), DType::BF16);
    EXPECT_EQ(bytesOf(dir / "model.safetensors"), bytesOf(again / "model.safetensors"));
    fs::remove_all(dir);
}

TEST(WeightFormat, FlagsAndDevicesAreCheckedWithClearMessages) {
    EXPECT_EQ(parseWeightFormat("q8"), WeightFormat::Q8);
    EXPECT_EQ(parseDevice("cuda"), ComputeDevice::Cuda);
    std::string err = text::testing::errorOf([] { parseWeightFormat("int4"); });
    EXPECT_NE(err.find("--weights must be f32, bf16 or q8, not 'int4'"), std::string::npos) << err;
    err = text::testing::errorOf([] { parseDevice("tpu"); });
    EXPECT_NE(err.find("--device must be cpu, cuda or auto, not 'tpu'"), std::string::npos) << err;
    EXPECT_EQ(resolveDevice(ComputeDevice::Cpu), ComputeDevice::Cpu);
    if (cudaAvailable()) {
        EXPECT_EQ(resolveDevice(ComputeDevice::Auto), ComputeDevice::Cuda);
    } else {
        EXPECT_EQ(resolveDevice(ComputeDevice::Auto), ComputeDevice::Cpu);
        err = text::testing::errorOf([] { resolveDevice(ComputeDevice::Cuda); });
        EXPECT_NE(err.find("no CUDA device is usable on this machine"), std::string::npos) << err;
        EXPECT_NE(err.find("use --device cpu"), std::string::npos) << err;
    }
}
