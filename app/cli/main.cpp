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
#include <map>
#include <optional>
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
#include "qgpu/core/Environment.h"
#include "qgpu/core/Session.h"
#include "qgpu/core/Trace.h"
#include "qgpu/core/Variables.h"
#include "ChatCommand.h"
#include "CommandLine.h"
#include "EvalCommand.h"
#include "GpuCommands.h"
#include "HostCommands.h"
#include "SpliceCommands.h"
#include "qgpu/core/Launch.h"
#include "qgpu/runtime/Qwen35Model.h"
#include "qgpu/runtime/TorchSetup.h"

using namespace qgpu;
using cli::Args;
using cli::median;
using cli::usageError;

namespace {

int checkExpectations(const MachineState& state, const LaunchSpec& launch, const MemoryMap& map) {
    std::vector<std::string> bad = expectationMismatches(state, launch, map);
    for (const std::string& line : bad) std::cerr << "check: " << line << " (\"expect\")\n";
    if (!launch.hasExpectations()) std::cerr << "check: the launch spec has no \"expect\"\n";
    std::cout << "check: " << (bad.empty() ? "ok" : "FAILED") << "\n";
    return bad.empty() ? 0 : 1;
}

int runProgram(const Program& program, const Args& a) {
    if (a.positional.size() != 1 || a.launch.empty())
        usageError(a.command, "give one program file and --launch SPEC.json");
    if (!a.backend.empty() && a.backend != "reference" && a.backend != "model")
        usageError(a.command, "--backend takes reference or model");
    MachineSpec spec = MachineSpec::standard();
    LaunchSpec launch = parseLaunchSpec(readFile(a.launch), a.launch);
    if (!a.gpu.empty() && a.backend != "model") usageError(a.command, "--gpu needs --backend model");
    if (a.backend == "model") {
        if (a.engine != "sparse" && a.engine != "dense") usageError(a.command, "--engine takes sparse or dense");
        Program linked = linkLaunch(program, launch, spec).program;
        if (!a.gpu.empty() && a.engine == "dense")
            usageError(a.command, "--gpu runs on the sparse engine; drop --engine dense");
        return cli::runOnModel(linked, launch, a.engine == "dense" ? Engine::Dense : Engine::Sparse, a.gpu, a.quiet,
                               a.check, a.maxSteps);
    }
    auto session = makeReferenceSession(spec);
    session->load(program, launch);
    StopReason r = session->run(a.maxSteps);
    if (!a.quiet)
        for (const auto& ev : session->history()) std::cout << formatEvent(ev, program, spec.lanesPerWarp);
    bool stackFull = cli::reportWarnings(program, session->history());
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
    MemoryMap map = linkLaunch(program, launch, spec).map;
    std::cout << "finished in " << session->position() << " steps\n";
    bool assertionFailed = cli::reportPrintf(session->snapshot().global, map);
    std::cout << formatArrays(session->snapshot(), map);
    if (!program.variables.empty()) std::cout << formatThreadVariables(session->snapshot(), map, program, launch, spec);
    if (stackFull || assertionFailed) return 1;
    return a.check ? checkExpectations(session->snapshot(), launch, map) : 0;
}

CompiledKernel compileFile(const Args& a) {
    if (a.positional.size() != 1) usageError(a.command, "give one KERNEL.cu");
    CompiledKernel k = compileKernel(readFile(a.positional[0]), a.positional[0], MachineSpec::standard(), a.compile);
    for (const auto& d : k.warnings) std::cerr << d.format() << "\n";
    return k;
}

int runCompile(const Args& a) {
    if (a.emit == "ptx") {
        if (a.positional.size() != 1) usageError(a.command, "give one KERNEL.cu");
        CudaCompileResult r = compileCudaToPtx(readFile(a.positional[0]), a.positional[0], a.compile);
        for (const auto& d : r.diagnostics) std::cerr << d.format() << "\n";
        if (r.ok) std::cout << r.ptx;
        return r.ok ? 0 : 1;
    }
    if (a.emit != "blocks" && a.emit != "map" && a.emit != "variables")
        usageError(a.command, "--emit takes ptx, blocks, map or variables");
    CompiledKernel k = compileFile(a);
    if (a.emit == "variables") {
        std::cout << formatVariables(k.kernel);
        return 0;
    }
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
    if (files.empty()) usageError(a.command, "no .cu files in " + dir.string());
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
        usageError(a.command, "--geometry takes 2b or tiny");
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
    if (a.host.empty()) usageError(a.command, "chat needs --host DIR");
    if (!a.positional.empty())
        usageError(a.command, "chat takes no positional arguments; give the message with --prompt");
    if (a.mode != "normal" && a.mode != "advanced" && a.mode != "text")
        usageError(a.command, "--mode takes normal, advanced or text");
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
    o.dir = !a.dir.empty() ? a.dir : userCacheDir() + "/qgpu/bench-host";
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
    if (a.positional.size() != 1)
        usageError(a.command, "give one expression in quotes, e.g. qgpu eval \"[1, 2, 3] @ [4, 5, 6]\"");
    if (!a.backend.empty() && a.backend != "reference" && a.backend != "model")
        usageError(a.command, "--backend takes reference or model");
    if (a.engine != "sparse" && a.engine != "dense") usageError(a.command, "--engine takes sparse or dense");
    cli::EvalOptions options;
    options.onModel = a.backend != "reference";
    options.engine = a.engine == "dense" ? Engine::Dense : Engine::Sparse;
    options.check = a.check;
    options.quiet = a.quiet;
    return cli::evalExpression(a.positional[0], options, QGPU_RESOURCE_DIR);
}

std::optional<DType> dtypeOption(const Args& a) {
    if (a.dtype.empty()) return std::nullopt;
    if (a.dtype != "bf16" && a.dtype != "f32") usageError(a.command, "--dtype takes bf16 or f32");
    return a.dtype == "f32" ? DType::F32 : DType::BF16;
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

int buildGpuCommand(const Args& a) {
    if (a.out.empty()) usageError(a.command, "give --out DIR");
    return cli::buildGpu(a.out, dtypeOption(a).value_or(DType::BF16));
}

int buildHostCommand(const Args& a) {
    if (a.host.empty() || a.out.empty()) usageError(a.command, "build needs --host DIR and --out DIR");
    return cli::buildHost(a.host, a.out, dtypeOption(a));
}

int checkSpliceCommand(const Args& a) {
    if (a.host.empty() || a.combined.empty()) usageError(a.command, "check-splice needs --host DIR and --combined DIR");
    return cli::checkSplice(a.host, a.combined, a.prompt, QGPU_RESOURCE_DIR);
}

int benchCommand(const Args& a) {
    DType weights = dtypeOption(a).value_or(DType::F32);
    if (!a.suite && !a.kernels.empty()) usageError(a.command, "--kernels picks suite kernels: give --suite too");
    return a.suite ? cli::benchSuite(a.runs, std::max(0, a.denseRuns), weights, a.kernels, a.profile, QGPU_RESOURCE_DIR)
                   : cli::benchGpu(a.runs, a.denseRuns < 0 ? 1 : a.denseRuns, weights, a.profile, QGPU_RESOURCE_DIR);
}

int versionCommand(const Args&) {
    initTorch();
    std::cout << "qgpu 0.1.0\n" << clangVersionString() << "\n" << torchDescription() << "\n";
    return 0;
}

int helpCommand(const Args& a) {
    if (a.positional.empty()) {
        std::cout << cli::fullUsage();
        return 0;
    }
    const cli::Command* c = cli::findCommand(a.positional[0]);
    if (!c) usageError(nullptr, "qgpu help: unknown command '" + a.positional[0] + "'");
    std::cout << "usage:\n" << c->usage;
    return 0;
}

int runCommand(const Args& a) { return runProgram(compileFile(a).kernel.program, a); }

int asmCommand(const Args& a) {
    if (a.positional.size() != 1) usageError(a.command, "give one PROGRAM.qasm");
    return runProgram(assemble(readFile(a.positional[0]), a.positional[0]), a);
}

using Handler = int (*)(const Args&);
const std::map<std::string_view, Handler> kHandlers = {
    {"asm", asmCommand},
    {"run", runCommand},
    {"eval", evalCommand},
    {"build-gpu", buildGpuCommand},
    {"build", buildHostCommand},
    {"check-splice", checkSpliceCommand},
    {"bench", benchCommand},
    {"compile", runCompile},
    {"bench-compile", benchCompile},
    {"bench-model", benchModel},
    {"chat", chatCommand},
    {"bench-host", benchHostCommand},
    {"circuit-costs", [](const Args&) { return printCircuitCosts(); }},
    {"version", versionCommand},
    {"help", helpCommand},
};

// Parses the command's arguments and runs it; user errors leave as DiagnosticError.
int dispatch(int argc, char** argv) {
    const cli::Command* command = cli::findCommand(argv[1]);
    if (!command) {
        std::cerr << "unknown command '" << argv[1] << "'; `qgpu help` lists the commands\n";
        return 2;
    }
    Args a = cli::parseArgs(*command, argc, argv);
    if (a.help) {
        std::cout << "usage:\n" << command->usage;
        return 0;
    }
    return kHandlers.at(command->name)(a);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::cerr << cli::fullUsage();
        return 2;
    }
    try {
        return dispatch(argc, argv);
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
