// What GpuModel::load and the checkpoint loaders refuse before any weight is trusted: a plain Qwen checkpoint
// given as the GPU's, an edited config.json (width, geometry, layer count), tensors whose bytes or dtype no
// longer match the checksums written beside them, and weights that are NaN.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>

#include <sys/stat.h>

#include "../text/TextTestUtil.h"
#include "CircuitTestSupport.h"
#include "TinyConfig.h"
#include "qgpu/compiler/gpu/Machine.h"
#include "qgpu/core/Files.h"
#include "qgpu/runtime/CircuitCheckpoint.h"
#include "qgpu/runtime/GpuModel.h"
#include "qgpu/runtime/Qwen35Model.h"

using namespace qgpu;
namespace fs = std::filesystem;
using text::testing::errorOf;

namespace {

// A tiny random Qwen3.5 checkpoint in `dtype`.
fs::path tinyCheckpoint(const std::string& name, DType dtype = DType::F32) {
    fs::path d = qgpu::testing::tempDir(name);
    auto m = Qwen35Model::random(qgpu::testing::tinyConfig({LayerType::LinearAttention, LayerType::FullAttention}), 5);
    m->save(d.string(), dtype);
    return d;
}

// Byte offset of tensor `index`'s data in a single-file checkpoint, and its dtype as the header spells it.
std::pair<size_t, std::string> tensorAt(const fs::path& file, size_t index) {
    std::string bytes = readFile(file, size_t(1) << 30);
    uint64_t headerLen;
    std::memcpy(&headerLen, bytes.data(), 8);
    nlohmann::json header = nlohmann::json::parse(bytes.substr(8, headerLen));
    header.erase("__metadata__");
    auto it = std::next(header.begin(), long(index));
    return {8 + headerLen + (*it)["data_offsets"][0].get<size_t>(), (*it)["dtype"].get<std::string>()};
}

void overwrite(const fs::path& file, size_t offset, const std::string& bytes) {
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(long(offset));
    f.write(bytes.data(), long(bytes.size()));
}

// The machine's own layout and config, as build-gpu writes them, without its gigabytes of weights.
fs::path gpuFilesWithoutWeights(const std::string& name, int layersToWrite) {
    fs::path d = qgpu::testing::tempDir(name);
    gpu::Machine machine = gpu::buildMachine(gpu::defaultMachineGeometry());
    Qwen35Config config = circuitConfig(machine.circuit, gpu::vocabularySize());
    config.numLayers = layersToWrite;
    config.layerTypes.assign(size_t(layersToWrite), LayerType::LinearAttention);
    writeTextFile(d / "config.json", config.toJson());
    writeTextFile(d / kCircuitLayoutFile, machine.circuit.layoutJson());
    return d;
}

}  // namespace

TEST(CheckpointTrust, APlainQwenCheckpointIsNotTakenForTheGpus) {
    fs::path d = tinyCheckpoint("plain");
    std::string err = errorOf([&] { GpuModel::load(d.string()); });
    EXPECT_NE(err.find("has no circuit-layout.json: it is not a checkpoint with the GPU's layers"), std::string::npos)
        << err;
    fs::remove_all(d);
}

TEST(CheckpointTrust, AnEditedConfigIsNamedBeforeAnyWeightIsRead) {
    fs::path d = tinyCheckpoint("edited");
    writeTextFile(d / kCircuitLayoutFile, R"({"format": "qgpu-circuit-layout", "hidden_size": 2048})");
    std::string err = errorOf([&] { GpuModel::load(d.string()); });
    EXPECT_NE(err.find("config.json's hidden_size 32 is not the 2048 of circuit-layout.json"), std::string::npos)
        << err;
    fs::remove_all(d);

    gpu::Machine machine = gpu::buildMachine(gpu::defaultMachineGeometry());
    int layers = machine.circuit.layerCount();
    d = gpuFilesWithoutWeights("layers", layers);  // the closing attention layer left out of the count
    err = errorOf([&] { GpuModel::load(d.string()); });
    EXPECT_NE(err.find("num_hidden_layers is " + std::to_string(layers) + " but the GPU's " + std::to_string(layers) +
                       " layers and the closing attention layer's 1 make " + std::to_string(layers + 1)),
              std::string::npos)
        << err;
    fs::remove_all(d);

    d = gpuFilesWithoutWeights("heads", layers + 1);
    Qwen35Config config = Qwen35Config::load(d.string());
    config.linearNumKeyHeads = config.linearNumValueHeads = 2;  // too few heads for the machine's memories
    writeTextFile(d / "config.json", config.toJson());
    err = errorOf([&] { GpuModel::load(d.string()); });
    EXPECT_NE(err.find(d.string() + ": error: "), std::string::npos) << err;
    EXPECT_TRUE(err.find("cannot hold this qgpu's machine") != std::string::npos ||
                err.find("describes another machine") != std::string::npos)
        << err;
    fs::remove_all(d);
}

TEST(CheckpointTrust, ChecksumsCatchAFlippedBitARelabelledDtypeAndAMissingFile) {
    fs::path d = tinyCheckpoint("sums", DType::BF16);
    fs::path file = d / "model.safetensors";
    std::string err = errorOf([&] { TensorChecksums::load(d.string()); });
    EXPECT_NE(err.find("tensor-checksums.json: error: not found"), std::string::npos) << err;

    writeTensorChecksums(d.string());
    auto verifyAll = [&] {
        Checkpoint checkpoint(d.string());
        TensorChecksums sums = TensorChecksums::load(d.string());
        for (const std::string& name : checkpoint.names()) sums.verify(name, *checkpoint.find(name));
    };
    EXPECT_EQ(errorOf(verifyAll), "");

    auto [offset, dtype] = tensorAt(file, 1);
    ASSERT_EQ(dtype, "BF16");
    std::string original = readFile(file, size_t(1) << 30);
    overwrite(file, offset, std::string(1, char(original[offset] ^ 1)));
    err = errorOf(verifyAll);
    EXPECT_NE(err.find("does not match its checksum: the checkpoint's weights were changed or damaged"),
              std::string::npos)
        << err;

    // bf16 data labelled F16 (the header keeps its length: a space after the shorter name).
    std::string relabelled = original;
    size_t at = relabelled.find("\"BF16\"");
    ASSERT_NE(at, std::string::npos);
    relabelled.replace(at, 6, "\"F16\" ");
    writeTextFile(file, relabelled);
    err = errorOf(verifyAll);
    EXPECT_NE(err.find("(F16) does not match its checksum"), std::string::npos) << err;
    fs::remove_all(d);
}

TEST(CheckpointTrust, ANaNWeightIsRefusedWhenAHostLoads) {
    fs::path d = tinyCheckpoint("nan");
    auto [offset, dtype] = tensorAt(d / "model.safetensors", 2);
    ASSERT_EQ(dtype, "F32");
    float nan = std::numeric_limits<float>::quiet_NaN();
    overwrite(d / "model.safetensors", offset + 4 * 3, std::string(reinterpret_cast<const char*>(&nan), 4));
    std::string err = errorOf([&] { Qwen35Model::load(d.string()); });
    EXPECT_NE(err.find("' holds NaN at element 3: the checkpoint is damaged"), std::string::npos) << err;
    fs::remove_all(d);
}

// A checkpoint's files stay in its folder: an index naming a path outside it, a symbolic link out of it and
// a FIFO in a weights file's place are refused before anything is opened, and no message shows a file's bytes.
TEST(CheckpointTrust, ACheckpointIsConfinedToItsFolder) {
    fs::path d = tinyCheckpoint("confined");
    fs::path outside = qgpu::testing::tempDir("confined-outside");
    fs::rename(d / "model.safetensors", outside / "model.safetensors");
    auto indexNaming = [&](const std::string& shard) {
        writeTextFile(d / "model.safetensors.index.json",
                      nlohmann::json{{"weight_map", {{"embed_tokens.weight", shard}}}}.dump());
        return errorOf([&] { Checkpoint c(d.string()); });
    };
    EXPECT_NE(indexNaming((outside / "model.safetensors").string()).find("outside its folder"), std::string::npos);
    EXPECT_NE(indexNaming("../confined-outside/model.safetensors").find("outside its folder"), std::string::npos);
    fs::create_symlink(outside / "model.safetensors", d / "linked.safetensors");
    EXPECT_NE(indexNaming("linked.safetensors").find("leads outside the checkpoint's folder"), std::string::npos);
    ASSERT_EQ(::mkfifo((d / "fifo.safetensors").c_str(), 0600), 0);
    EXPECT_NE(indexNaming("fifo.safetensors").find("is not a regular file"), std::string::npos);
    fs::remove(d / "model.safetensors.index.json");
    fs::create_symlink("/etc/hostname", d / "model.safetensors");  // any file outside, as the weights
    EXPECT_NE(errorOf([&] { Checkpoint c(d.string()); }).find("leads outside"), std::string::npos);
    fs::remove(d / "model.safetensors");
    writeTextFile(d / "model.safetensors", "SECRETS!and more text than eight bytes");
    std::string e = errorOf([&] { Checkpoint c(d.string()); });
    EXPECT_NE(e.find("the header's length is more than the file's"), std::string::npos) << e;
    uint64_t shown = 0;
    std::memcpy(&shown, "SECRETS!", 8);
    EXPECT_EQ(e.find(std::to_string(shown)), std::string::npos) << "the file's bytes as a number: " << e;
    fs::remove(d / "config.json");
    fs::create_symlink("/etc/hostname", d / "config.json");
    EXPECT_NE(errorOf([&] { Qwen35Config::load(d.string()); }).find("leads outside"), std::string::npos);
}
