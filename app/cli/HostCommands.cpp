#include "HostCommands.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "GpuCommands.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/ProcessMemory.h"
#include "qgpu/runtime/HostSplice.h"
#include "qgpu/runtime/text/ChatTemplate.h"
#include "qgpu/runtime/text/PreTokenizer.h"
#include "qgpu/runtime/text/Tokenizer.h"

namespace qgpu::cli {

namespace fs = std::filesystem;

namespace {

double secondsSince(std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// A byte-level tokenizer over the whole vocabulary, with Qwen3.5's split: the 256 byte tokens, a few merges (llama.cpp
// insists on some), filler tokens that no text produces, and Qwen's chat special tokens last. Enough for a
// random-weight host to chat (gibberish), to be spliced and to be converted to GGUF.
std::string benchmarkTokenizer(int vocabSize) {
    auto byteLevel = [] {
        return nlohmann::json{
            {"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}};
    };
    nlohmann::json qwenSplit = {{"type", "Split"},
                                {"pattern", {{"Regex", std::string(text::kQwen35SplitPattern)}}},
                                {"behavior", "Isolated"},
                                {"invert", false}};
    nlohmann::json vocab = nlohmann::json::object(), added = nlohmann::json::array();
    for (int b = 0; b < 256; ++b) vocab[text::byteLevelSpelling(std::string(1, char(b)))] = b;
    nlohmann::json merges = nlohmann::json::array();
    for (const char* pair : {"th", "he", "in", "er", "an"}) {
        merges.push_back(std::string(1, pair[0]) + " " + pair[1]);
        vocab[pair] = 256 + int(merges.size()) - 1;
    }
    for (int filler = int(vocab.size()); filler < vocabSize - 3; ++filler) vocab["~" + std::to_string(filler)] = filler;
    int id = vocabSize - 3;
    for (std::string_view special : {text::kEndOfText, text::kImStart, text::kImEnd})
        added.push_back({{"id", id++},
                         {"content", std::string(special)},
                         {"special", true},
                         {"single_word", false},
                         {"lstrip", false},
                         {"rstrip", false},
                         {"normalized", false}});
    nlohmann::json j = {{"version", "1.0"},
                        {"added_tokens", added},
                        {"normalizer", {{"type", "NFC"}}},
                        {"pre_tokenizer", {{"type", "Sequence"}, {"pretokenizers", {qwenSplit, byteLevel()}}}},
                        {"decoder", byteLevel()},
                        {"model",
                         {{"type", "BPE"},
                          {"dropout", nullptr},
                          {"unk_token", nullptr},
                          {"continuing_subword_prefix", ""},
                          {"end_of_word_suffix", ""},
                          {"fuse_unk", false},
                          {"byte_fallback", false},
                          {"ignore_merges", false},
                          {"vocab", vocab},
                          {"merges", merges}}}};
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
    double loadSeconds = -1, peakGiB = 0, prefill = 0, decode = 0;  // loadSeconds -1: not measured
    double peakWithGpuGiB = -1;  // a combined checkpoint: with its GPU layers loaded too, as chat's first tool call
};

struct ChildResult {
    std::string output;
    int status = -1;
    double peakGiB = 0;
};

// Runs argv[0] with stdout captured, stderr passed through; the child's own peak RSS from wait4.
ChildResult runChild(const std::vector<std::string>& args) {
    int out[2];
    if (pipe(out) != 0) throw DiagnosticError(Diagnostic{"", 0, 0, "cannot start " + args[0]});
    pid_t pid = fork();
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        close(out[0]);
        close(out[1]);
        std::vector<char*> argv;
        for (const std::string& a : args) argv.push_back(const_cast<char*>(a.c_str()));
        argv.push_back(nullptr);
        execv(argv[0], argv.data());
        _exit(127);
    }
    close(out[1]);
    ChildResult r;
    char buffer[4096];
    for (ssize_t n; (n = read(out[0], buffer, sizeof buffer)) > 0;) r.output.append(buffer, size_t(n));
    close(out[0]);
    struct rusage usage {};
    wait4(pid, &r.status, 0, &usage);
    r.peakGiB = double(usage.ru_maxrss) / (1024.0 * 1024.0);
    return r;
}

std::string commandLine(const std::vector<std::string>& args) {
    std::string s;
    for (const std::string& a : args) s += (s.empty() ? "" : " ") + a;
    return s;
}

Figures measureInChild(const std::string& self, const fs::path& dir, WeightFormat f, const BenchHostOptions& o) {
    std::vector<std::string> args = {self,        "bench-host",
                                     "--measure", dir.string(),
                                     "--weights", weightFormatName(f),
                                     "--device",  deviceName(o.device),
                                     "--runs",    std::to_string(o.runs),
                                     "--prefill", std::to_string(o.prefill),
                                     "--decode",  std::to_string(o.decode)};
    ChildResult c = runChild(args);
    Figures r;
    if (c.status != 0 ||
        std::sscanf(c.output.c_str(), "%lf %lf %lf %lf", &r.loadSeconds, &r.prefill, &r.decode, &r.peakGiB) != 4)
        throw DiagnosticError(Diagnostic{"", 0, 0, "the measurement failed: " + commandLine(args)});
    if (fs::exists(dir / kSpliceFile)) r.peakWithGpuGiB = c.peakGiB;
    return r;
}

// llama-bench on one GGUF file: prefill and decode tokens/s (medians of its samples) and its peak RSS.
Figures measureLlama(const fs::path& llamaBench, const fs::path& gguf, const BenchHostOptions& o) {
    std::vector<std::string> args = {llamaBench.string(),
                                     "-m",
                                     gguf.string(),
                                     "-p",
                                     std::to_string(o.prefill),
                                     "-n",
                                     std::to_string(o.decode),
                                     "-t",
                                     std::to_string(torchThreads()),
                                     "-r",
                                     std::to_string(o.runs),
                                     "-o",
                                     "json"};
    ChildResult c = runChild(args);
    if (c.status != 0) throw DiagnosticError(Diagnostic{"", 0, 0, "llama-bench failed: " + commandLine(args)});
    Figures r;
    r.peakGiB = c.peakGiB;
    for (const auto& test : nlohmann::json::parse(c.output)) {
        std::vector<double> samples = test.at("samples_ts").get<std::vector<double>>();
        (test.at("n_gen").get<int>() > 0 ? r.decode : r.prefill) = median(samples);
    }
    return r;
}

void printRow(const std::string& engine, const std::string& checkpoint, const std::string& weights,
              const std::string& device, const Figures& f) {
    auto figure = [](double v, int decimals) {
        char text[32];
        std::snprintf(text, sizeof text, "%.*f", decimals, v);
        return v < 0 ? std::string("-") : std::string(text);
    };
    std::printf("| %s | %s | %s | %s | %s | %.2f | %s | %.1f | %.2f |\n", engine.c_str(), checkpoint.c_str(),
                weights.c_str(), device.c_str(), figure(f.loadSeconds, 1).c_str(), f.peakGiB,
                figure(f.peakWithGpuGiB, 2).c_str(), f.prefill, f.decode);
    std::fflush(stdout);
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
    std::fprintf(stderr,
                 "%s[host: %s weights on %s, %d wide, %d layers, vocabulary %d; loaded in %.1f s; %.2f GiB resident]\n",
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
    double hostPeak = peakMemoryGiB();
    if (std::filesystem::exists(std::filesystem::path(dir) / kSpliceFile))
        GpuModel::open(dir);  // what chat loads at Qwen's first tool call: the process's peak is then chat's
    std::printf("%.3f %.3f %.3f %.3f\n", loadSeconds, median(prefillTps), median(decodeTps), hostPeak);
    return 0;
}

void prepareBenchHost(const std::string& dir) {
    fs::path root = dir, host = root / "qwen3.5-2b-random", combined = root / "qwen3.5-2b-random-combined";
    fs::create_directories(root);
    if (!fs::exists(host / "config.json")) writeBenchmarkHost(host);
    if (!fs::exists(combined / "config.json")) writeCombined(host, combined);
}

int benchHost(const BenchHostOptions& o, const std::string& self) {
    prepareBenchHost(o.dir);
    fs::path root = o.dir, host = root / "qwen3.5-2b-random", combined = root / "qwen3.5-2b-random-combined";
    initTorch();
    std::string device = deviceName(resolveDevice(o.device));
    std::printf("%s; prefill %d tokens, decode %d tokens, medians of %d runs; each row a process of its own\n",
                torchDescription().c_str(), o.prefill, o.decode, o.runs);
    std::printf(
        "| engine | checkpoint | weights | device | load s | peak RSS GiB | with the GPU's layers | prefill "
        "tokens/s | decode tokens/s |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    std::map<std::pair<std::string, WeightFormat>, Figures> ours;
    for (const auto& [name, dir] : {std::pair{"Qwen3.5-2B", host}, std::pair{"combined", combined}})
        for (WeightFormat f : o.formats) {
            ours[{name, f}] = measureInChild(self, dir, f, o);
            printRow("qgpu", name, weightFormatName(f), device, ours[{name, f}]);
        }
    if (o.llamaDir.empty()) return 0;
    fs::path bench = fs::path(o.llamaDir) / "build" / "bin" / "llama-bench";
    for (const auto& [format, file] : {std::pair{WeightFormat::BF16, "bf16"}, std::pair{WeightFormat::Q8, "q8_0"}}) {
        fs::path gguf = root / ("qwen3.5-2b-random-" + std::string(file) + ".gguf");
        if (!fs::exists(gguf)) continue;
        Figures l = measureLlama(bench, gguf, o);
        printRow("llama.cpp", "Qwen3.5-2B (GGUF)", file, "cpu", l);
        for (const char* name : {"Qwen3.5-2B", "combined"})
            if (ours.count({name, format}))
                std::printf("  qgpu %s / llama.cpp at %s: prefill %.2fx, decode %.2fx\n", name, file,
                            ours[{name, format}].prefill / l.prefill, ours[{name, format}].decode / l.decode);
    }
    return 0;
}

}  // namespace qgpu::cli
