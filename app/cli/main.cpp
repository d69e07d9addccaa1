// qgpu: the command-line face of qgpu studio. Wiring only: every job is a library call.

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "qgpu/core/Files.h"
#include "qgpu/compiler/CudaCompiler.h"
#include "qgpu/compiler/Frontend.h"
#include "qgpu/compiler/Ptx.h"
#include "qgpu/compiler/circuit/Costs.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/core/Assembler.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Session.h"
#include "qgpu/core/Trace.h"
#include "ChatCommand.h"
#include "EvalCommand.h"
#include "GpuCommands.h"
#include "HostCommands.h"
#include "SpliceCommands.h"
#include "qgpu/core/Launch.h"
#include "qgpu/runtime/Qwen35Model.h"
#include "qgpu/runtime/TorchSetup.h"

using namespace qgpu;
using cli::median;

namespace {

const char* kUsage = R"(usage:
  qgpu asm PROGRAM.qasm --launch SPEC.json [--quiet] [--check] [--max-steps N]
      Runs an assembly program on the reference interpreter; prints every step and the final arrays.
      --check compares the arrays with the spec's "expect" and exits 1 on a difference. A launch that does
      not end within N warp steps (default 100000) is an error, on either backend.
  qgpu run KERNEL.cu --launch SPEC.json [--backend reference|model] [--engine sparse|dense] [--gpu DIR]
           [--quiet] [--check] [--max-steps N] [-O0..-O3]
      Compiles and lowers a CUDA kernel, then runs it like `asm`. --backend model runs it inside the compiled
      GPU model (any launch of at most 32 warps): prints the tokens the model wrote, tokens/s and every
      thread's registers; --check is then the replay check against the interpreter (at a difference it
      prints both streams and the machines decoded at the first differing step, and exits 1), then the
      interpreter's stream teacher-forced through the model (dense: one prefill), every record predicted.
      --gpu DIR runs on the GPU layers of a checkpoint (build-gpu's or build --host's, sparse engine)
      instead of building them from code. The model stops after as many records as the interpreter's run
      of the launch writes; a long run reports progress on stderr, and Ctrl-C stops it (exit code 130).
      `asm` takes the same flags.
  qgpu eval EXPR [--backend model|reference] [--engine sparse|dense] [--check] [--quiet]
      Evaluates an expression of chat's normal mode, e.g. "[1, 2, 3] @ [4, 5, 6]" (docs/expressions.md):
      each operation is a launch of a ready-made kernel, inside the GPU model by default. Prints every
      launch (kernel, shape, warp steps, tokens, tokens/s, its value) and the result; --check replays each
      model launch on the interpreter and exits 1 on a difference.
  qgpu build-gpu --out DIR [--dtype bf16|f32]
      Writes the compiled GPU as a stock Qwen3.5 checkpoint with its layout file (circuit-layout.json).
  qgpu build --host DIR --out DIR [--dtype bf16|f32]
      Splices the compiled GPU's layers in front of the Qwen3.5 checkpoint in --host (docs/splice.md): one
      stock checkpoint with a wider residual, the chip tokens after the host's vocabulary (tokenizer.json
      too), circuit-layout.json and splice.json. Matrices in --dtype (default: the host's), residual norms
      in f32. Writes OUT.partial and renames it when complete.
  qgpu check-splice --host DIR --combined DIR [--prompt TEXT]
      The combined model against the host: KL of the next-token distribution over text (--prompt, or a
      built-in paragraph), the chip tokens' probability there, and the dot-product launch teacher-forced
      in the combined model. Exits 1 when the KL exceeds 1e-5 or a record is mispredicted.
  qgpu bench [--runs N] [--suite [--kernels A,B,...]] [--dense-runs M] [--dtype f32|bf16] [--profile]
      The model backend's examples (dot_product.cu, straight_line, branches, every_alu_op) on the sparse
      engine (medians of N runs, default 5) and the first two on the dense engine (M runs, default 1):
      tokens/s, latency, speed-up.
      --suite: every suite kernel on the sparse engine: tokens, tokens/s, launch latency, exact, peak memory;
      with --dense-runs M (default 0: the dense engine decodes about 3 tokens/s, hours for the suite) also
      the dense engine's tokens/s and latency and the speed-up. --kernels: only these suite kernels (names
      without .cu). --dtype bf16: every weight rounded to bf16 first, as a bf16 checkpoint holds it
      (default f32). --profile: then where the sparse engine's time went, per phase, LM head and layer
      (microseconds per token), and the weights it multiplies per token.
  qgpu compile KERNEL.cu [--emit ptx|blocks|map] [-O0..-O3]
      Compiles CUDA in-process; prints the PTX (default), the machine blocks, or the line map
      (block, slot, CUDA line, PTX line).
  qgpu bench-compile [DIR] [--runs N]
      Times CUDA -> PTX and PTX -> blocks for every .cu in DIR (default resources/kernels): medians in ms.
  qgpu bench-model [--geometry 2b|tiny] [--runs N] [--prefill T] [--decode T]
      Random weights at Qwen3.5 geometry, built in memory: prefill and decode tokens/s (medians) and
      peak memory.
  qgpu chat --host DIR [--mode normal|advanced|text] [--max-tokens N] [--temperature T] [--top-k K] [--top-p P]
            [--seed S] [--think] [--prompt TEXT] [--weights f32|bf16|q8] [--device cpu|cuda|auto]
      Chats with the Qwen3.5 checkpoint in DIR (config.json, safetensors, tokenizer.json): answers --prompt,
      or reads one message per line from stdin until an empty line or EOF. Replies stream to stdout, speed
      to stderr; Ctrl-C stops a reply. Greedy unless --temperature > 0; --think lets the model reason first.
      The GPU is Qwen's tool: normal mode (default) offers gpu_eval (expressions, docs/expressions.md),
      advanced mode run_cuda_kernel (Qwen writes the kernel); each call runs inside the compiled GPU model
      and its result goes back to Qwen. --mode text: no tool. A combined checkpoint (`qgpu build --host`)
      chats on the host's layers over the host's own dims, its GPU layers run the tool's launches.
      --weights: how the host's linear weights are held (default: as stored, bf16 for a bf16 checkpoint;
      q8: 8-bit with a scale per row); --device: where its layers run (default: CUDA when present).
  qgpu bench-host [--dir DIR] [--weights f32,bf16,q8] [--device cpu|cuda|auto] [--runs N] [--prefill T]
                  [--decode T] [--llama LLAMA_CPP_DIR] [--prepare]
      A random-weight Qwen3.5-2B (bf16) and its combined checkpoint, written once into DIR (default
      ~/.cache/qgpu/bench-host, about 16 GB): per weight format, in a process of its own, load time, peak
      RSS, prefill tokens/s over T tokens (default 512) and decode tokens/s over T tokens (default 128),
      medians of N runs (default 3). --llama: llama-bench from that llama.cpp build on the same weights as
      DIR/qwen3.5-2b-random-{bf16,q8_0}.gguf, with the ratios; scripts/bench-host.sh prepares both.
      --prepare: only write the checkpoints.
  qgpu circuit-costs
      Builds every circuit primitive and prints its cost in layers, MLP neurons, residual dims, heads.
  qgpu version
)";

struct Args {
    std::vector<std::string> positional;
    std::string launch;
    std::string emit = "ptx";
    std::string backend;                        // run and asm: reference; eval: model
    std::string engine = "sparse", out, dtype;  // dtype: "" for the command's default
    std::string geometry = "2b";
    std::string host, combined, prompt, mode = "normal", gpu;
    std::string kernels;                                        // bench --suite: a comma-separated subset
    std::string weights, device = "auto", measure, dir, llama;  // chat and bench-host
    std::set<std::string> given;                                // every flag on the command line
    int maxTokens = 512;
    text::SamplingParams sampling;
    bool think = false;
    int prefill = 64, decode = 16;
    bool quiet = false, check = false, suite = false, profile = false;
    int runs = 5, denseRuns = -1;  // -1: the command's default
    int optLevel = 2;
    int maxSteps = gpu::kDefaultMaxSteps;  // run and asm: the launch's bound in warp steps
};

[[noreturn]] void usageError(const std::string& msg) {
    throw DiagnosticError(Diagnostic{"", 0, 0, msg + "\n" + kUsage});
}

// A flag's value as a whole number in [min, max]; anything else (abc, 1.5, 12x, out of range) is a usage
// error naming the flag and the range.
long long integerFlag(const std::string& flag, const std::string& text, long long min, long long max) {
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max)
        usageError(flag + " takes a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                   ", not '" + text + "'");
    return v;
}

// A flag's value as a finite number in [min, max].
float numberFlag(const std::string& flag, const std::string& text, float min, float max) {
    char* end = nullptr;
    float v = std::strtof(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(v) || v < min || v > max) {
        std::ostringstream range;
        range << min << " to " << max;
        usageError(flag + " takes a number from " + range.str() + ", not '" + text + "'");
    }
    return v;
}

uint64_t seedFlag(const std::string& text) {
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || text[0] == '-' || *end != '\0' || errno == ERANGE)
        usageError("--seed takes a whole number from 0 to 18446744073709551615, not '" + text + "'");
    return v;
}

Args parseArgs(int argc, char** argv) {
    Args a;
    for (int i = 2; i < argc; ++i) {
        std::string s = argv[i];
        if (s.rfind("--", 0) == 0) a.given.insert(s);
        auto value = [&]() -> std::string {
            if (i + 1 >= argc) usageError(s + " needs a value");
            return argv[++i];
        };
        if (s == "--launch")
            a.launch = value();
        else if (s == "--emit")
            a.emit = value();
        else if (s == "--backend")
            a.backend = value();
        else if (s == "--engine")
            a.engine = value();
        else if (s == "--out")
            a.out = value();
        else if (s == "--dtype")
            a.dtype = value();
        else if (s == "--geometry")
            a.geometry = value();
        else if (s == "--prefill")
            a.prefill = int(integerFlag(s, value(), 1, 100000));
        else if (s == "--decode")
            a.decode = int(integerFlag(s, value(), 1, 100000));
        else if (s == "--runs")
            a.runs = int(integerFlag(s, value(), 1, 10000));
        else if (s == "--host")
            a.host = value();
        else if (s == "--gpu")
            a.gpu = value();
        else if (s == "--combined")
            a.combined = value();
        else if (s == "--mode")
            a.mode = value();
        else if (s == "--prompt")
            a.prompt = value();
        else if (s == "--max-tokens")
            a.maxTokens = int(integerFlag(s, value(), 1, 1 << 20));
        else if (s == "--temperature")
            a.sampling.temperature = numberFlag(s, value(), 0, 100);
        else if (s == "--top-k")
            a.sampling.topK = int(integerFlag(s, value(), 0, 1 << 24));
        else if (s == "--top-p")
            a.sampling.topP = numberFlag(s, value(), 0, 1);
        else if (s == "--seed")
            a.sampling.seed = seedFlag(value());
        else if (s == "--prepare")
            ;  // a flag: `given` holds it
        else if (s == "--think")
            a.think = true;
        else if (s == "--quiet")
            a.quiet = true;
        else if (s == "--check")
            a.check = true;
        else if (s == "--suite")
            a.suite = true;
        else if (s == "--profile")
            a.profile = true;
        else if (s == "--kernels")
            a.kernels = value();
        else if (s == "--weights")
            a.weights = value();
        else if (s == "--device")
            a.device = value();
        else if (s == "--measure")
            a.measure = value();
        else if (s == "--dir")
            a.dir = value();
        else if (s == "--llama")
            a.llama = value();
        else if (s == "--max-steps")
            a.maxSteps = int(integerFlag(s, value(), 1, 1000000));
        else if (s == "--dense-runs")
            a.denseRuns = int(integerFlag(s, value(), 0, 10000));
        else if (s.size() == 3 && s.rfind("-O", 0) == 0 && s[2] >= '0' && s[2] <= '3')
            a.optLevel = s[2] - '0';
        else if (s.size() > 1 && s[0] == '-' && std::string("0123456789[( ").find(s[1]) == std::string::npos)
            usageError("unknown option '" + s + "'");
        else
            a.positional.push_back(s);
    }
    return a;
}

int checkExpectations(const MachineState& state, const LaunchSpec& launch, const MemoryMap& map) {
    std::vector<std::string> bad = expectationMismatches(state, launch, map);
    for (const std::string& line : bad) std::cerr << "check: " << line << " (\"expect\")\n";
    if (launch.expect.empty()) std::cerr << "check: the launch spec has no \"expect\"\n";
    std::cout << "check: " << (bad.empty() ? "ok" : "FAILED") << "\n";
    return bad.empty() ? 0 : 1;
}

int runProgram(const Program& program, const Args& a) {
    if (a.positional.size() != 1 || a.launch.empty()) usageError("give one program file and --launch SPEC.json");
    if (!a.backend.empty() && a.backend != "reference" && a.backend != "model")
        usageError("--backend takes reference or model");
    MachineSpec spec = MachineSpec::standard();
    LaunchSpec launch = parseLaunchSpec(readFile(a.launch), a.launch);
    if (!a.gpu.empty() && a.backend != "model") usageError("--gpu needs --backend model");
    if (a.backend == "model") {
        if (a.engine != "sparse" && a.engine != "dense") usageError("--engine takes sparse or dense");
        Program linked = linkProgram(program, launch, validateLaunch(launch, spec), spec);
        if (!a.gpu.empty() && a.engine == "dense") usageError("--gpu runs on the sparse engine; drop --engine dense");
        return cli::runOnModel(linked, launch, a.engine == "dense" ? Engine::Dense : Engine::Sparse, a.gpu, a.quiet,
                               a.check, a.maxSteps);
    }
    auto session = makeReferenceSession(spec);
    session->load(program, launch);
    StopReason r = session->run(a.maxSteps);
    if (!a.quiet)
        for (const auto& ev : session->history()) std::cout << formatEvent(ev, program, spec.lanesPerWarp);
    if (r == StopReason::Faulted) {
        int block = session->history().empty() ? -1 : session->history().back().block;
        std::cerr << "error: " << locatedFault(program, block, session->snapshot().fault) << "\n";
        return 1;
    }
    if (r != StopReason::Finished) {
        std::cerr << "error: the launch did not finish within " << a.maxSteps
                  << " warp steps; check the kernel for an endless loop, or raise the limit with --max-steps\n";
        return 1;
    }
    MemoryMap map = validateLaunch(launch, spec);
    std::cout << "finished in " << session->position() << " steps\n" << formatArrays(session->snapshot(), map);
    return a.check ? checkExpectations(session->snapshot(), launch, map) : 0;
}

CompiledKernel compileFile(const Args& a) {
    if (a.positional.size() != 1) usageError("give one KERNEL.cu");
    CudaCompileOptions opts;
    opts.optLevel = a.optLevel;
    CompiledKernel k = compileKernel(readFile(a.positional[0]), a.positional[0], MachineSpec::standard(), opts);
    for (const auto& d : k.warnings) std::cerr << d.format() << "\n";
    return k;
}

int runCompile(const Args& a) {
    if (a.emit == "ptx") {
        if (a.positional.size() != 1) usageError("give one KERNEL.cu");
        CudaCompileOptions opts;
        opts.optLevel = a.optLevel;
        CudaCompileResult r = compileCudaToPtx(readFile(a.positional[0]), a.positional[0], opts);
        for (const auto& d : r.diagnostics) std::cerr << d.format() << "\n";
        if (r.ok) std::cout << r.ptx;
        return r.ok ? 0 : 1;
    }
    if (a.emit != "blocks" && a.emit != "map") usageError("--emit takes ptx, blocks or map");
    CompiledKernel k = compileFile(a);
    if (a.emit == "map") {
        std::cout << "block slot cuda_line ptx_line\n";
        for (const auto& e : k.kernel.lineMap)
            std::cout << e.block << " " << e.slot << " " << e.cudaLine << " " << e.ptxLine << "\n";
        return 0;
    }
    std::cout << formatLowered(k.kernel);
    return 0;
}

int benchCompile(const Args& a) {
    namespace fs = std::filesystem;
    fs::path dir = a.positional.empty() ? fs::path(QGPU_RESOURCE_DIR) / "kernels" : fs::path(a.positional[0]);
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".cu") files.push_back(e.path());
    if (files.empty()) usageError("no .cu files in " + dir.string());
    std::sort(files.begin(), files.end());
    std::printf("%-22s %10s %10s %7s  (median of %d runs)\n", "kernel", "ptx ms", "lower ms", "blocks", a.runs);
    std::vector<double> allPtx, allLower;
    for (const auto& f : files) {
        std::string source = readFile(f.string());
        std::vector<double> ptxMs, lowerMs;
        size_t blocks = 0;
        for (int r = 0; r < a.runs; ++r) {
            auto t0 = std::chrono::steady_clock::now();
            CudaCompileResult c = compileCudaToPtx(source, f.filename().string());
            auto t1 = std::chrono::steady_clock::now();
            if (!c.ok) throw DiagnosticError(c.diagnostics);
            LoweredKernel k = lowerKernel(ptx::parse(c.ptx), kernelParameterNames(source), f.filename().string());
            auto t2 = std::chrono::steady_clock::now();
            ptxMs.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
            lowerMs.push_back(std::chrono::duration<double, std::milli>(t2 - t1).count());
            blocks = k.program.blocks.size();
        }
        allPtx.push_back(median(ptxMs));
        allLower.push_back(median(lowerMs));
        std::printf("%-22s %10.2f %10.3f %7zu\n", f.stem().c_str(), allPtx.back(), allLower.back(), blocks);
    }
    std::printf("%-22s %10.2f %10.3f  (median over %zu kernels)\n", "all", median(allPtx), median(allLower),
                files.size());
    return 0;
}

int benchModel(const Args& a) {
    Qwen35Config c = Qwen35Config::geometry2b();
    if (a.geometry == "tiny") {
        c.hiddenSize = 256, c.intermediateSize = 768, c.numLayers = 4, c.vocabSize = 4096;
        c.layerTypes = {LayerType::LinearAttention, LayerType::LinearAttention, LayerType::LinearAttention,
                        LayerType::FullAttention};
    } else if (a.geometry != "2b") {
        usageError("--geometry takes 2b or tiny");
    }
    initTorch();
    std::printf("%s, geometry %s: hidden %d, %d layers, vocab %d\n", torchDescription().c_str(), a.geometry.c_str(),
                c.hiddenSize, c.numLayers, c.vocabSize);
    auto t0 = std::chrono::steady_clock::now();
    auto model = Qwen35Model::random(c, 1);
    double buildS = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::vector<int> prompt;
    for (int i = 0; i < a.prefill; ++i) prompt.push_back((i * 7919) % c.vocabSize);
    std::vector<double> prefillTps, decodeTps;
    for (int r = 0; r < a.runs; ++r) {
        ModelState state = model->newState();
        auto p0 = std::chrono::steady_clock::now();
        std::vector<float> logits = model->forward(prompt, state);
        auto p1 = std::chrono::steady_clock::now();
        for (int i = 0; i < a.decode; ++i) {
            int next = int(std::max_element(logits.begin(), logits.end()) - logits.begin());  // greedy
            logits = model->forward({next}, state);
        }
        auto p2 = std::chrono::steady_clock::now();
        prefillTps.push_back(a.prefill / std::chrono::duration<double>(p1 - p0).count());
        decodeTps.push_back(a.decode / std::chrono::duration<double>(p2 - p1).count());
    }
    std::printf("built in %.1f s; prefill %d tokens: %.1f tokens/s; decode %d tokens: %.2f tokens/s (medians of %d)\n",
                buildS, a.prefill, median(prefillTps), a.decode, median(decodeTps), a.runs);
    std::printf("peak memory %.2f GiB\n", peakMemoryGiB());
    return 0;
}

int chatCommand(const Args& a) {
    if (a.host.empty()) usageError("chat needs --host DIR");
    if (!a.positional.empty()) usageError("chat takes no positional arguments; give the message with --prompt");
    if (a.mode != "normal" && a.mode != "advanced" && a.mode != "text")
        usageError("--mode takes normal, advanced or text");
    cli::ChatCommandOptions o;
    o.host = a.host;
    o.prompt = a.prompt;
    o.gpu = a.mode != "text";
    o.mode = a.mode == "advanced" ? ChatMode::Advanced : ChatMode::Normal;
    o.session.thinking = a.think;
    o.session.generation.maxNewTokens = a.maxTokens;
    o.session.generation.sampling = a.sampling;
    if (!a.weights.empty()) o.hostOptions.weights = parseWeightFormat(a.weights);
    o.hostOptions.device = parseDevice(a.device);
    return cli::chat(o, QGPU_RESOURCE_DIR);
}

int benchHostCommand(const Args& a) {
    ComputeDevice device = parseDevice(a.device);
    int runs = a.given.count("--runs") ? a.runs : 3, prefill = a.given.count("--prefill") ? a.prefill : 512,
        decode = a.given.count("--decode") ? a.decode : 128;
    if (!a.measure.empty())
        return cli::measureHost(a.measure, parseWeightFormat(a.weights), device, runs, prefill, decode);
    cli::BenchHostOptions o;
    const char* cache = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    o.dir = !a.dir.empty() ? a.dir
            : cache        ? std::string(cache) + "/qgpu/bench-host"
                           : std::string(home ? home : ".") + "/.cache/qgpu/bench-host";
    if (!a.weights.empty()) {
        o.formats.clear();
        std::stringstream list(a.weights);
        for (std::string f; std::getline(list, f, ',');) o.formats.push_back(parseWeightFormat(f));
    }
    o.device = device;
    o.runs = runs, o.prefill = prefill, o.decode = decode;
    o.llamaDir = a.llama;
    if (a.given.count("--prepare")) {
        cli::prepareBenchHost(o.dir);
        return 0;
    }
    return cli::benchHost(o, std::filesystem::read_symlink("/proc/self/exe").string());
}

int evalCommand(const Args& a) {
    if (a.positional.size() != 1) usageError("give one expression in quotes, e.g. qgpu eval \"[1, 2, 3] @ [4, 5, 6]\"");
    if (!a.backend.empty() && a.backend != "reference" && a.backend != "model")
        usageError("--backend takes reference or model");
    if (a.engine != "sparse" && a.engine != "dense") usageError("--engine takes sparse or dense");
    cli::EvalOptions options;
    options.onModel = a.backend != "reference";
    options.engine = a.engine == "dense" ? Engine::Dense : Engine::Sparse;
    options.check = a.check;
    options.quiet = a.quiet;
    return cli::evalExpression(a.positional[0], options, QGPU_RESOURCE_DIR);
}

std::optional<DType> dtypeOption(const std::string& dtype) {
    if (dtype.empty()) return std::nullopt;
    if (dtype != "bf16" && dtype != "f32") usageError("--dtype takes bf16 or f32");
    return dtype == "f32" ? DType::F32 : DType::BF16;
}

int printCircuitCosts() {
    std::cout << "| primitive | layers | MLP neurons per layer | residual dims (in + out + internal) | heads |\n"
              << "|---|---|---|---|---|\n";
    for (const auto& c : circuit::primitiveCosts()) {
        std::string neurons;
        for (int n : c.neuronsPerLayer) neurons += (neurons.empty() ? "" : " + ") + std::to_string(n);
        std::cout << "| " << c.name << " | " << c.layers << " | " << neurons << " | " << c.inputDims << " + "
                  << c.outputDims << " + " << c.internalDims << " | " << c.heads << " |\n";
    }
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << kUsage;
        return 2;
    }
    std::string cmd = argv[1];
    try {
        Args a = parseArgs(argc, argv);
        if (cmd == "asm") {
            if (a.positional.size() != 1) usageError("give one PROGRAM.qasm");
            return runProgram(assemble(readFile(a.positional[0]), a.positional[0]), a);
        }
        if (cmd == "run") return runProgram(compileFile(a).kernel.program, a);
        if (cmd == "compile") return runCompile(a);
        if (cmd == "bench-compile") return benchCompile(a);
        if (cmd == "bench-model") return benchModel(a);
        if (cmd == "chat") return chatCommand(a);
        if (cmd == "bench-host") return benchHostCommand(a);
        if (cmd == "eval") return evalCommand(a);
        if (cmd == "circuit-costs") return printCircuitCosts();
        if (cmd == "build-gpu") {
            if (a.out.empty()) usageError("give --out DIR");
            return cli::buildGpu(a.out, dtypeOption(a.dtype).value_or(DType::BF16));
        }
        if (cmd == "build") {
            if (a.host.empty() || a.out.empty()) usageError("build needs --host DIR and --out DIR");
            return cli::buildHost(a.host, a.out, dtypeOption(a.dtype));
        }
        if (cmd == "check-splice") {
            if (a.host.empty() || a.combined.empty()) usageError("check-splice needs --host DIR and --combined DIR");
            return cli::checkSplice(a.host, a.combined, a.prompt, QGPU_RESOURCE_DIR);
        }
        if (cmd == "bench") {
            DType weights = dtypeOption(a.dtype).value_or(DType::F32);
            return a.suite ? cli::benchSuite(a.runs, std::max(0, a.denseRuns), weights, a.kernels, a.profile,
                                             QGPU_RESOURCE_DIR)
                           : cli::benchGpu(a.runs, a.denseRuns < 0 ? 1 : a.denseRuns, weights, a.profile,
                                           QGPU_RESOURCE_DIR);
        }
        if (cmd == "version" || cmd == "--version") {
            initTorch();
            std::cout << "qgpu 0.1.0\n" << clangVersionString() << "\n" << torchDescription() << "\n";
            return 0;
        }
        if (cmd == "help" || cmd == "--help" || cmd == "-h") {
            std::cout << kUsage;
            return 0;
        }
        std::cerr << "unknown command '" << cmd << "'\n" << kUsage;
        return 2;
    } catch (const DiagnosticError& e) {
        std::cerr << e.what() << "\n";
        return 1;
    } catch (const std::filesystem::filesystem_error& e) {  // a path the user gave that cannot be read or written
        std::cerr << "error: " << e.what() << "\n";
        return 1;
    } catch (const std::bad_alloc&) {
        std::cerr << "error: out of memory; the input asks for more memory than this machine has\n";
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "internal error: " << e.what() << "\n";
        return 3;
    }
}
