#include "HostCommands.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "GpuCommands.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/ProcessMemory.h"
#include "qgpu/runtime/HostSplice.h"
#include "qgpu/runtime/text/ChatTemplate.h"

namespace qgpu::cli {

namespace fs = std::filesystem;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// GPT-2's byte alphabet: how a byte-level BPE vocabulary spells byte b.
std::string byteSpelling(int b) {
    auto printable = [](int x) { return (x >= 33 && x <= 126) || (x >= 161 && x <= 172) || x >= 174; };
    int cp = b;
    if (!printable(b)) {
        cp = 256;
        for (int x = 0; x < b; ++x) cp += printable(x) ? 0 : 1;
    }
    std::string out;
    if (cp < 0x80) return std::string(1, char(cp));
    out += char(0xC0 | cp >> 6);
    out += char(0x80 | (cp & 0x3F));
    return out;
}

// A byte-level tokenizer (256 byte tokens, no merges) with Qwen's chat special tokens at the end of the
// vocabulary: enough for a random-weight host to chat (gibberish) and to be spliced.
std::string benchmarkTokenizer(int vocabSize) {
    nlohmann::json vocab = nlohmann::json::object(), added = nlohmann::json::array();
    for (int b = 0; b < 256; ++b) vocab[byteSpelling(b)] = b;
    int id = vocabSize - 3;
    for (std::string_view special : {text::kEndOfText, text::kImStart, text::kImEnd})
        added.push_back({{"id", id++},
                         {"content", std::string(special)},
                         {"special", true},
                         {"single_word", false},
                         {"lstrip", false},
                         {"rstrip", false},
                         {"normalized", false}});
    nlohmann::json j = {
        {"version", "1.0"},
        {"added_tokens", added},
        {"normalizer", nullptr},
        {"pre_tokenizer", {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", true}}},
        {"decoder", {{"type", "ByteLevel"}}},
        {"model",
         {{"type", "BPE"}, {"dropout", nullptr}, {"unk_token", nullptr}, {"fuse_unk", false}, {"byte_fallback", false},
          {"vocab", vocab}, {"merges", nlohmann::json::array()}}}};
    return j.dump();
}

void writeBenchmarkHost(const fs::path& dir) {
    std::cerr << "writing a random-weight Qwen3.5-2B (bf16) to " << dir << "..." << std::flush;
    auto start = std::chrono::steady_clock::now();
    fs::path partial = dir.string() + ".partial";
    fs::remove_all(partial);
    fs::create_directories(partial);
    Qwen35Config config = Qwen35Config::geometry2b();
    Qwen35Model::random(config, 1)->save(partial.string(), DType::BF16);
    std::ofstream(partial / "tokenizer.json") << benchmarkTokenizer(config.vocabSize);
    fs::rename(partial, dir);
    std::cerr << " " << secondsSince(start) << " s\n";
}

void writeCombined(const fs::path& host, const fs::path& out) {
    std::cerr << "splicing the GPU in front of it into " << out << "..." << std::flush;
    auto start = std::chrono::steady_clock::now();
    spliceHost(host.string(), out.string(), gpuChip());
    std::cerr << " " << secondsSince(start) << " s\n";
}

struct Figures {
    double loadSeconds = 0, peakGiB = 0, prefill = 0, decode = 0;
};

Figures measureInChild(const std::string& self, const fs::path& dir, WeightFormat f, const BenchHostOptions& o) {
    std::ostringstream cmd;
    cmd << "'" << self << "' bench-host --measure '" << dir.string() << "' --weights " << weightFormatName(f)
        << " --device " << deviceName(o.device) << " --runs " << o.runs << " --prefill " << o.prefill << " --decode "
        << o.decode;
    FILE* p = popen(cmd.str().c_str(), "r");
    if (!p) throw DiagnosticError(Diagnostic{"", 0, 0, "cannot start " + cmd.str()});
    Figures r;
    int n = std::fscanf(p, "%lf %lf %lf %lf", &r.loadSeconds, &r.peakGiB, &r.prefill, &r.decode);
    if (pclose(p) != 0 || n != 4) throw DiagnosticError(Diagnostic{"", 0, 0, "the measurement failed: " + cmd.str()});
    return r;
}

}  // namespace

ChatHost loadHostWithProgress(const std::string& dir, ChatHostOptions options) {
    auto start = std::chrono::steady_clock::now();
    bool tty = isatty(STDERR_FILENO);
    int lastPercent = -1;
    options.progress = [&](int done, int total) {
        int percent = 100 * done / total;
        if (percent == lastPercent || (!tty && percent % 25 != 0)) return;
        lastPercent = percent;
        std::cerr << (tty ? "\r" : "") << "loading " << dir << ": " << percent << "% (" << done << " of " << total
                  << " tensors)" << (tty ? "" : "\n") << std::flush;
    };
    ChatHost host = loadChatHost(dir, options);
    const Qwen35Config& c = host.model->config();
    std::fprintf(stderr, "%s[host: %s weights on %s, %d wide, %d layers, vocabulary %d; loaded in %.1f s; %.2f GiB resident]\n",
                 tty ? "\r" : "", weightFormatName(host.model->weightFormat()), deviceName(host.model->device()),
                 c.hiddenSize, c.numLayers, c.vocabSize, secondsSince(start), residentMemoryGiB());
    return host;
}

int measureHost(const std::string& dir, WeightFormat format, ComputeDevice device, int runs, int prefill, int decode) {
    initTorch();
    auto start = std::chrono::steady_clock::now();
    ModelLoadOptions load{format, device, true, {}};
    auto model = Qwen35Model::load(dir, load);
    double loadSeconds = secondsSince(start);
    std::vector<int> prompt;
    for (int i = 0; i < prefill; ++i) prompt.push_back(int((int64_t(i) * 7919 + 13) % 256));
    {  // a first token maps every weight into memory and lets the kernels pick their code paths
        ModelState warm = model->newState();
        model->forward({prompt[0]}, warm);
    }
    std::vector<double> prefillTps, decodeTps;
    for (int r = 0; r < runs; ++r) {
        ModelState state = model->newState();
        auto p0 = std::chrono::steady_clock::now();
        std::vector<float> logits = model->forward(prompt, state);
        prefillTps.push_back(prefill / secondsSince(p0));
        auto d0 = std::chrono::steady_clock::now();
        for (int i = 0; i < decode; ++i) {
            int next = int(std::max_element(logits.begin(), logits.end()) - logits.begin());
            logits = model->forward({next}, state);
        }
        decodeTps.push_back(decode / secondsSince(d0));
    }
    std::printf("%.3f %.3f %.3f %.3f\n", loadSeconds, peakMemoryGiB(), median(prefillTps), median(decodeTps));
    return 0;
}

int benchHost(const BenchHostOptions& o, const std::string& self) {
    fs::path root = o.dir, host = root / "qwen3.5-2b-random", combined = root / "qwen3.5-2b-random-combined";
    fs::create_directories(root);
    if (!fs::exists(host / "config.json")) writeBenchmarkHost(host);
    if (!fs::exists(combined / "config.json")) writeCombined(host, combined);
    initTorch();
    std::printf("%s; prefill %d tokens, decode %d tokens, medians of %d runs; each row a process of its own\n",
                torchDescription().c_str(), o.prefill, o.decode, o.runs);
    std::printf("| checkpoint | weights | device | load s | peak RSS GiB | prefill tokens/s | decode tokens/s |\n");
    std::printf("|---|---|---|---|---|---|---|\n");
    for (const auto& [name, dir] : {std::pair{"Qwen3.5-2B", host}, std::pair{"combined", combined}})
        for (WeightFormat f : o.formats) {
            Figures r = measureInChild(self, dir, f, o);
            std::printf("| %s | %s | %s | %.1f | %.2f | %.1f | %.2f |\n", name, weightFormatName(f),
                        deviceName(resolveDevice(o.device)), r.loadSeconds, r.peakGiB, r.prefill, r.decode);
            std::fflush(stdout);
        }
    return 0;
}

}  // namespace qgpu::cli
