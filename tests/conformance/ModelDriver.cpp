// What our side computes, for the conformance scripts to compare with Hugging Face transformers:
//
//   qgpu_conformance random-checkpoint --geometry tiny|2b|host --layers N --layout text|multimodal
//                                      --dtype f32|bf16 --seed S --out DIR
//       a random-weight Qwen3.5 checkpoint written by our runtime (multimodal: Qwen3.5-2B's layout, with the
//       text tensors under model.language_model., a small vision tower under model.visual. and an MTP head
//       under mtp., in two shards with model.safetensors.index.json)
//   qgpu_conformance logits --model DIR --tokens FILE.json --out FILE.safetensors
//       our runtime's logits after the prefill of FILE's "prompt" ids and after each cached decode step of
//       its "decode" ids ("prefill" [vocab], "decode" [steps, vocab], fp32)
//   qgpu_conformance launches --out FILE.json [--kernels A,B] [--budget TOKENS]
//       every suite kernel's fed tokens and the interpreter's stream (ids in the GPU's alphabet); a name
//       with a folder (examples/dot_product) is a kernel of resources/ with its launch spec beside it.
//       --budget: only the teacher sample (TeacherSample.h), which it prints; exits 2 when the sample
//       takes more tokens than the budget
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "../runtime/TinyConfig.h"
#include "../text/TextTestUtil.h"
#include "CheckpointWriter.h"
#include "TeacherSample.h"
#include "qgpu/compiler/Frontend.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Files.h"
#include "qgpu/runtime/Qwen35Model.h"
#include "qgpu/runtime/Safetensors.h"

using namespace qgpu;
namespace fs = std::filesystem;
using Json = nlohmann::json;

namespace {

struct Args {
    std::string command;
    std::map<std::string, std::string> flags;

    std::string get(const std::string& name, const std::string& fallback = "") const {
        auto it = flags.find(name);
        if (it != flags.end()) return it->second;
        if (fallback.empty()) throw std::runtime_error("missing --" + name);
        return fallback;
    }
};

Args parseArgs(int argc, char** argv) {
    Args a;
    if (argc < 2)
        throw std::runtime_error("usage: qgpu_conformance random-checkpoint|logits|launches --flag value ...");
    a.command = argv[1];
    for (int i = 2; i < argc; i += 2) {
        std::string flag = argv[i];
        if (flag.rfind("--", 0) != 0 || i + 1 >= argc) throw std::runtime_error("expected --flag value at " + flag);
        a.flags[flag.substr(2)] = argv[i + 1];
    }
    return a;
}

DType parseDtype(const std::string& s) {
    if (s == "f32") return DType::F32;
    if (s == "bf16") return DType::BF16;
    throw std::runtime_error("--dtype takes f32 or bf16");
}

// `layers` layers in Qwen3.5-2B's pattern (three Gated DeltaNet layers, then full attention) at 2B's text
// geometry; at the tests' tiny one (GQA, partial RoPE, grouped value heads); or as a host for the splice:
// 2B's heads and MLP (what the GPU's layers need) at hidden size 128, with a 300-token vocabulary.
Qwen35Config geometry(const std::string& name, int layers) {
    std::vector<LayerType> types;
    for (int i = 0; i < layers; ++i)
        types.push_back((i + 1) % 4 == 0 ? LayerType::FullAttention : LayerType::LinearAttention);
    if (name == "tiny") return testing::tinyConfig(types, true, 512);
    if (name != "2b" && name != "host") throw std::runtime_error("--geometry takes tiny, 2b or host");
    Qwen35Config c = Qwen35Config::geometry2b();
    if (name == "host") {
        c.hiddenSize = 128;
        c.vocabSize = 300;
    }
    c.numLayers = layers;
    c.layerTypes = types;
    return c;
}

int randomCheckpoint(const Args& a) {
    Qwen35Config c = geometry(a.get("geometry"), std::stoi(a.get("layers", "4")));
    uint64_t seed = std::stoull(a.get("seed", "1"));
    fs::path out = a.get("out");
    fs::create_directories(out);
    conformance::writeRandomCheckpoint(out, c, seed, parseDtype(a.get("dtype", "f32")),
                                       a.get("layout", "text") == "multimodal");
    if (c.vocabSize >= 256)  // a byte-level tokenizer, as `qgpu build --host` needs one
        std::ofstream(out / "tokenizer.json") << text::testing::tokenizerJson(text::testing::TokenizerSpec{}).dump();
    std::cout << "wrote " << out.string() << "\n";
    return 0;
}

std::vector<int> intArray(const Json& j) { return j.get<std::vector<int>>(); }

int logits(const Args& a) {
    auto model = Qwen35Model::load(a.get("model"));
    Json tokens = Json::parse(readFile(a.get("tokens")));
    std::vector<int> prompt = intArray(tokens.at("prompt")), decode = intArray(tokens.at("decode"));
    ModelState state = model->newState();
    std::vector<float> prefill = model->forward(prompt, state);
    std::vector<float> steps;
    for (int t : decode) {
        std::vector<float> l = model->forward({t}, state);
        steps.insert(steps.end(), l.begin(), l.end());
    }
    int64_t vocab = model->config().vocabSize;
    writeSafetensors(a.get("out"), {TensorData::fromFloat("prefill", {vocab}, prefill),
                                    TensorData::fromFloat("decode", {int64_t(decode.size()), vocab}, steps)});
    return 0;
}

std::vector<int> ids(const std::vector<gpu::Token>& tokens) {
    std::vector<int> out;
    for (const gpu::Token& t : tokens) out.push_back(t.id());
    return out;
}

std::vector<std::string> kernelNames(const Args& a, const fs::path& dir) {
    std::vector<std::string> names;
    if (a.flags.count("kernels")) {
        std::stringstream list(a.get("kernels"));
        for (std::string n; std::getline(list, n, ',');) names.push_back(n);
        return names;
    }
    for (const auto& entry : fs::directory_iterator(dir))
        if (entry.path().extension() == ".cu") names.push_back(entry.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}

// Keeps the launches of the teacher sample, each cut to the records it is taught, and prints it: each launch
// taken, its tokens and what it added.
Json teacherSample(const Json& all, const std::vector<conformance::SampleCandidate>& candidates, size_t budget) {
    conformance::Sample s = conformance::coverSample(candidates);
    Json kept = Json::object();
    for (const conformance::SampleChoice& choice : s.chosen) {
        const conformance::SampleCandidate& c = candidates[choice.candidate];
        Json launch = all.at(c.name);
        std::vector<int> records = launch.at("records");
        launch["records"] = std::vector<int>(records.begin(), records.begin() + long(choice.records));
        kept[c.name] = launch;
        std::cout << c.name << " (" << c.fed << " fed, " << choice.records << " of " << c.records << " records):";
        for (const std::string& f : choice.added) std::cout << " [" << f << "]";
        std::cout << "\n";
    }
    size_t total = 0;
    for (const auto& c : candidates) total += c.fed + c.records;
    std::cout << "teacher sample: " << s.chosen.size() << " of " << candidates.size() << " launches, " << s.tokens
              << " of " << total << " tokens, covering all " << s.featureCount << " features of the suite\n";
    std::string unreached;
    for (int op = 0; op < int(Opcode::Count_); ++op) {
        std::string feature = "op " + std::string(opcodeInfo(Opcode(op)).mnemonic);
        bool seen = std::any_of(candidates.begin(), candidates.end(), [&](const conformance::SampleCandidate& c) {
            auto it = c.features.lower_bound(feature);
            return it != c.features.end() && it->first.rfind(feature, 0) == 0;
        });
        if (!seen) unreached += " " + feature.substr(3);
    }
    if (!unreached.empty()) std::cout << "opcodes no suite launch executes:" << unreached << "\n";
    if (s.tokens > budget)
        throw std::runtime_error("the teacher sample takes " + std::to_string(s.tokens) +
                                 " tokens, over its budget of " + std::to_string(budget) +
                                 " (docs/conformance.md): make the launch that brings a feature shorter, or "
                                 "raise the budget and gpu.teacher's time together");
    return kept;
}

int launches(const Args& a) {
    fs::path dir = fs::path(QGPU_RESOURCE_DIR) / "kernels";
    MachineSpec spec = MachineSpec::standard();
    Json out = Json::object();
    std::vector<conformance::SampleCandidate> candidates;
    for (const std::string& name : kernelNames(a, dir)) {
        fs::path base = name.find('/') == std::string::npos ? dir / name : fs::path(QGPU_RESOURCE_DIR) / name;
        fs::path cu = base.string() + ".cu", json = base.string() + ".json";
        Program program = compileKernel(readFile(cu), cu.string(), spec).kernel.program;
        LaunchSpec launch = parseLaunchSpec(readFile(json), json.string());
        Program linked = linkLaunch(program, launch, spec).program;
        gpu::ReferenceLaunch ref = gpu::referenceLaunch(linked, launch);
        std::vector<gpu::Token> fed = gpu::loadTokens(linked, launch.grid, launch.block, ref.initialGlobal);
        out[name] = {{"fed", ids(fed)}, {"records", ids(ref.stream)}};
        if (a.flags.count("budget"))
            candidates.push_back(
                {name, fed.size(), ref.stream.size(), conformance::launchFeatures(linked, launch, fed, ref)});
    }
    if (a.flags.count("budget")) out = teacherSample(out, candidates, std::stoul(a.get("budget")));
    std::ofstream(a.get("out")) << out.dump();
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    try {
        Args a = parseArgs(argc, argv);
        if (a.command == "random-checkpoint") return randomCheckpoint(a);
        if (a.command == "logits") return logits(a);
        if (a.command == "launches") return launches(a);
        throw std::runtime_error("unknown command " + a.command);
    } catch (const DiagnosticError& e) {
        std::cerr << e.what() << "\n";
    } catch (const std::exception& e) {
        std::cerr << "qgpu_conformance: " << e.what() << "\n";
    }
    return 2;
}
