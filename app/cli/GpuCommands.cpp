#include "GpuCommands.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <numeric>
#include <optional>
#include <sstream>

#include "qgpu/compiler/Frontend.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/core/Assembler.h"
#include "qgpu/core/DevicePrintf.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/Session.h"
#include "qgpu/core/Trace.h"
#include "qgpu/runtime/GpuModelDense.h"
#include "qgpu/runtime/LaunchCheck.h"
#include "qgpu/runtime/ModelSession.h"

namespace qgpu::cli {

namespace {

std::string hex(uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "0x%08x", v);
    return buf;
}

// After a failed check: the launch again, step by step on the model backend beside the interpreter, and
// the decoded machine at the first step where the two differ. Returns 1 (the check failed).
int printFirstDivergence(const GpuModel& model, const Program& linked, const LaunchSpec& launch) {
    if (!model.has(Engine::Sparse)) return 1;  // stepping needs the sparse engine
    auto onModel = makeModelSession(model);
    auto onInterpreter = makeReferenceSession();
    onModel->load(linked, launch);
    onInterpreter->load(linked, launch);
    Divergence d = compareSessions(*onModel, *onInterpreter);
    if (d.step < 0) {
        std::cout << "check: stepped again, the decoded machines agree at every step\n";
        return 1;
    }
    std::cout << "check: the decoded machines first differ at step " << d.step << " (model first):\n";
    for (const std::string& line : d.differences) std::cout << "  " << line << "\n";
    return 1;
}

}  // namespace

ProgramFile loadLinked(const std::filesystem::path& path) {
    MachineSpec spec = MachineSpec::standard();
    std::filesystem::path json = path;
    json.replace_extension(".json");
    Program program = path.extension() == ".cu" ? compileKernel(readFile(path), path.string(), spec).kernel.program
                                                : assemble(readFile(path), path.string());
    LaunchSpec launch = parseLaunchSpec(readFile(json), json.string());
    return {linkLaunch(program, launch, spec).program, launch};
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::unique_ptr<GpuModel> openWithProgress(const std::string& dir, const std::vector<Engine>& engines, DType weights) {
    auto start = std::chrono::steady_clock::now();
    if (dir.empty())
        std::cerr << "building the GPU model from code" << (weights == DType::BF16 ? " (bf16 weights)" : "") << "...";
    else
        std::cerr << "loading the GPU's layers from " << dir << "...";
    std::cerr << std::flush;
    std::unique_ptr<GpuModel> model;
    try {
        model = GpuModel::open(dir, engines, weights, makeDenseGpu);
    } catch (...) {
        std::cerr << "\n";  // the error on a line of its own
        throw;
    }
    std::cerr << " " << model->machine().circuit.layerCount() << " layers in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() << " s\n";
    return model;
}

namespace {

std::atomic<bool> gStopRun{false};

void onRunInterrupt(int) { gStopRun = true; }

// While a launch runs in the model: Ctrl-C stops it, and past the first two seconds the records written
// so far go to stderr every two seconds (with --quiet too, which only leaves out the streams).
class RunMonitor {
public:
    explicit RunMonitor(size_t expected) : m_expected(expected) {
        gStopRun = false;
        m_previous = std::signal(SIGINT, onRunInterrupt);
    }
    ~RunMonitor() { std::signal(SIGINT, m_previous); }
    RunMonitor(const RunMonitor&) = delete;
    RunMonitor& operator=(const RunMonitor&) = delete;

    RunProgress progress() {
        return [this](size_t written, double seconds) {
            if (seconds >= m_nextReport) {
                std::cerr << "model: " << written << " of " << m_expected << " records written, "
                          << int(double(written) / seconds) << " tokens/s (Ctrl-C stops)\n";
                m_nextReport = seconds + 2;
            }
            return !gStopRun;
        };
    }

private:
    size_t m_expected;
    double m_nextReport = 2;
    void (*m_previous)(int) = SIG_DFL;
};

}  // namespace

bool reportWarnings(const Program& program, const std::vector<StepEvent>& history) {
    for (const std::string& w : locatedWarnings(program, history)) std::cerr << w << "\n";
    bool stackFull = callStackFilled(history);
    if (stackFull)
        std::cerr << "error: a thread stopped with its call stack full, so the results are incomplete; build with "
                     "a larger --call-depth if the launch's memory has room\n";
    return stackFull;
}

bool reportPrintf(const std::vector<uint32_t>& global, const MemoryMap& map) {
    DevicePrintfOutput printed = readDevicePrintf(global, map);
    for (const PrintedRecord& r : printed.records) (r.failedAssertion ? std::cerr : std::cout) << r.text;
    std::cout.flush();
    if (printed.droppedWords)
        std::cerr << "warning: printf's buffer (" << printed.bufferWords << " words) was full: " << printed.droppedWords
                  << " words of later calls' records were dropped; build with -D QGPU_PRINTF_WORDS=N for a larger "
                     "one\n";
    if (!printed.failedAssertion()) return false;
    std::cerr << "error: a device assertion failed (above), so the launch failed, as CUDA's does with "
                 "cudaErrorAssert\n";
    return true;
}

int runOnModel(const Program& linked, const LaunchSpec& launch, Engine engine, const std::string& gpuDir, bool quiet,
               bool check, int maxSteps) {
    // The interpreter's run bounds the model's: a launch that cannot end is refused before the model starts,
    // and the model stops once it has written as many records as the interpreter's stream holds.
    gpu::ReferenceLaunch ref = gpu::referenceLaunch(linked, launch, maxSteps);
    auto model = openWithProgress(gpuDir, {engine});
    RunMonitor monitor(ref.stream.size());
    GpuLaunch run = model->run(linked, launch.grid, launch.block, ref.initialGlobal, int(ref.stream.size()), engine,
                               monitor.progress());
    if (run.stopped) {
        std::cerr << "interrupted: the model had written " << run.written.size() << " of " << ref.stream.size()
                  << " records\n";
        return 130;
    }
    if (!quiet) {
        std::cout << "fed:     " << gpu::formatTokens(run.fed) << "\n";
        std::cout << "written: " << gpu::formatTokens(run.written) << "\n";
    }
    size_t total = run.fed.size() + run.written.size();
    std::cout << run.fed.size() << " tokens fed, " << run.written.size() << " written in " << run.seconds << " s ("
              << double(total) / run.seconds << " tokens/s, " << (engine == Engine::Sparse ? "sparse" : "dense")
              << " engine)\n";
    for (size_t thread = 0; !quiet && thread < run.registers.size(); ++thread) {
        std::cout << "thread " << thread << ":";
        for (int r = 1; r < 16; ++r) std::cout << " r" << r << "=" << hex(run.registers[thread][size_t(r)]);
        std::cout << "\n";
    }
    MachineState memory;
    memory.global = run.global;
    MemoryMap map = linkLaunch(linked, launch).map;
    bool assertionFailed = reportPrintf(memory.global, map);
    std::cout << formatArrays(memory, map);
    if (!run.fault.empty()) std::cerr << "error: " << locatedFault(linked, run.faultBlock, run.fault) << "\n";
    bool stackFull = reportWarnings(linked, ref.warned) || assertionFailed;
    if (!run.ended)
        std::cerr << "error: the model did not write END within the " << run.written.size()
                  << " records after which the interpreter's launch ends: its weights do not compute this machine"
                  << (check ? "" : " (--check shows where the model departs)") << "\n";
    if (!check) return run.ended && run.fault.empty() && !stackFull ? 0 : 1;
    if (LaunchCheck c = compareLaunch(run, ref); !c.exact()) {
        std::cout << "check: " << c.what << "\n";
        return printFirstDivergence(*model, linked, launch);
    }
    if (LaunchCheck c = teacherForcedCheck(*model, engine, run, ref); !c.exact()) {
        std::cout << "check: " << c.what << "\n";
        return 1;
    }
    std::cout << "check: ok (" << ref.stream.size()
              << " records, every register and memory word as the interpreter; teacher-forced, every record "
                 "predicted"
              << (ref.fault.empty() ? "" : "; both end in the same fault") << ")\n";
    return ref.fault.empty() && !stackFull ? 0 : 1;
}

int buildGpu(const std::string& out, DType dtype) {
    OutputDirectory::removePartialsOnInterrupt();
    OutputDirectory directory(out);  // refused before the minutes of building
    auto model = openWithProgress("", {Engine::Dense});
    model->saveInto(directory.partial(), dtype);
    directory.commit();
    std::cout << "wrote " << out << " (" << model->machine().circuit.layerCount() << " Qwen3.5 layers, vocabulary "
              << gpu::vocabularySize() << ")\n";
    return 0;
}

namespace {

std::vector<Engine> benchEngines(int denseRuns) {
    return denseRuns > 0 ? std::vector<Engine>{Engine::Sparse, Engine::Dense} : std::vector<Engine>{Engine::Sparse};
}

// Median launch seconds over `runs` launches on one engine; `last` gets the last launch.
double medianLaunch(const GpuModel& model, const Program& program, const LaunchSpec& launch,
                    const std::vector<uint32_t>& global, Engine engine, int runs, GpuLaunch& last) {
    std::vector<double> seconds;
    for (int i = 0; i < runs; ++i) {
        last = model.run(program, launch.grid, launch.block, global, 100000, engine);
        seconds.push_back(last.seconds);
    }
    return median(seconds);
}

// `qgpu bench --profile`: the time per token of each phase (summed over the layers), of the LM head and of
// each layer, and the weights the engine multiplies per token.
void printProfile(const SparseModel::Profile& p, size_t weights) {
    if (p.tokens == 0) return;
    std::array<double, SparseModel::Profile::kPhases> phases{};
    std::vector<double> layers;
    for (const auto& layer : p.layers) {
        layers.push_back(0);
        for (size_t i = 0; i < layer.size(); ++i) {
            phases[i] += layer[i];
            layers.back() += layer[i];
        }
    }
    const double total = std::accumulate(layers.begin(), layers.end(), p.head);
    auto row = [&](const std::string& part, double seconds) {
        std::ostringstream line;
        line << std::fixed << std::setprecision(1) << "| " << part << " | " << 1e6 * seconds / double(p.tokens) << " | "
             << 100 * seconds / total << "% |\n";
        std::cout << line.str();
    };
    std::cout << "\nwhere the sparse engine's time went: " << p.tokens << " tokens, " << p.headTokens
              << " of them through the LM head; microseconds per token\n| part | us/token | share |\n|---|---|---|\n";
    for (size_t i = 0; i < phases.size(); ++i) row(SparseModel::Profile::kPhaseNames[i], phases[i]);
    row("final norm and LM head", p.head);
    std::cout << "| layer | us/token | share |\n|---|---|---|\n";
    for (size_t l = 0; l < layers.size(); ++l) row(std::to_string(l), layers[l]);
    std::cout << "weights multiplied per token: at most " << weights << " (the layers' non-zero weights)\n";
}

// Records the sparse engine's profile while it lives, when asked to, and prints it at the end.
class ProfileScope {
public:
    ProfileScope(const GpuModel& model, bool on) : m_model(model), m_on(on) {
        if (m_on) m_model.profileSparse(&m_profile);
    }
    ~ProfileScope() {
        if (m_on) m_model.profileSparse(nullptr);
    }
    void print() const {
        if (m_on) printProfile(m_profile, m_model.sparseWeights());
    }

private:
    const GpuModel& m_model;
    bool m_on;
    SparseModel::Profile m_profile;
};

}  // namespace

int benchGpu(int runs, int denseRuns, DType weights, bool profile, const std::string& resourceDir) {
    auto model = openWithProgress("", benchEngines(denseRuns), weights);
    ProfileScope profiled(*model, profile);
    std::cout
        << "| program | threads | tokens | sparse tokens/s | sparse latency ms | dense tokens/s | dense latency ms "
           "| speed-up |\n|---|---|---|---|---|---|---|---|\n";
    // The dense engine takes minutes on the longer launches: it runs on the first two only.
    const std::vector<std::pair<std::string, bool>> programs = {
        {"dot_product.cu", true}, {"straight_line.qasm", true}, {"branches.qasm", false}, {"every_alu_op.qasm", false}};
    for (const auto& [file, denseToo] : programs) {
        auto [linked, launch] = loadLinked(std::filesystem::path(resourceDir) / "examples" / file);
        std::vector<uint32_t> initial = Interpreter(linked, launch).state().global;
        GpuLaunch last;
        double ms = medianLaunch(*model, linked, launch, initial, Engine::Sparse, runs, last);
        size_t tokens = last.fed.size() + last.written.size();
        std::cout << "| " << file << " | " << launch.totalThreads() << " | " << tokens << " | " << double(tokens) / ms
                  << " | " << 1000 * ms << " | ";
        if (denseRuns > 0 && denseToo) {
            double md = medianLaunch(*model, linked, launch, initial, Engine::Dense, denseRuns, last);
            std::cout << double(tokens) / md << " | " << 1000 * md << " | " << md / ms << "x |\n";
        } else {
            std::cout << "- | - | - |\n";
        }
    }
    std::cout << "sparse (" << model->sparseThreads() << " threads): median of " << runs << " runs; dense: median of "
              << denseRuns << "; " << dtypeName(weights) << " weights\n";
    profiled.print();
    return 0;
}

int benchSuite(int runs, int denseRuns, DType weights, const std::string& only, bool profile,
               const std::string& resourceDir) {
    std::filesystem::path dir = std::filesystem::path(resourceDir) / "kernels";
    std::vector<std::filesystem::path> kernels;
    if (only.empty()) {
        for (const auto& entry : std::filesystem::directory_iterator(dir))
            if (entry.path().extension() == ".cu") kernels.push_back(entry.path());
        std::sort(kernels.begin(), kernels.end());
    } else {
        std::stringstream names(only);
        for (std::string name; std::getline(names, name, ',');) {
            kernels.push_back(dir / (name + ".cu"));
            if (!std::filesystem::exists(kernels.back()))
                throw DiagnosticError(Diagnostic{
                    "--kernels", 0, 0, "no suite kernel '" + name + "' (the names of " + dir.string() + "/*.cu)"});
        }
    }
    auto model = openWithProgress("", benchEngines(denseRuns), weights);
    ProfileScope profiled(*model, profile);
    std::cout << "| kernel | threads | tokens | tokens/s | launch ms | exact | peak GiB | dense tokens/s | dense ms | "
                 "speed-up |\n|---|---|---|---|---|---|---|---|---|---|\n";
    for (const auto& path : kernels) {
        auto [linked, launch] = loadLinked(path);
        gpu::ReferenceLaunch ref = gpu::referenceLaunch(linked, launch);
        GpuLaunch run;
        double ms = medianLaunch(*model, linked, launch, ref.initialGlobal, Engine::Sparse, runs, run);
        bool exact = compareLaunch(run, ref).exact();
        size_t tokens = run.fed.size() + run.written.size();
        std::cout << "| " << path.stem().string() << " | " << launch.totalThreads() << " | " << tokens << " | "
                  << double(tokens) / ms << " | " << 1000 * ms << " | " << (exact ? "yes" : "NO") << " | "
                  << peakMemoryGiB() << " | ";
        if (denseRuns > 0) {
            GpuLaunch dense;
            double md = medianLaunch(*model, linked, launch, ref.initialGlobal, Engine::Dense, denseRuns, dense);
            std::cout << double(tokens) / md << " | " << 1000 * md << " | " << md / ms << "x |" << std::endl;
        } else {
            std::cout << "- | - | - |" << std::endl;
        }
    }
    std::cout << "sparse engine (" << model->sparseThreads() << " threads), median of " << runs
              << " runs per kernel; dense: median of " << denseRuns << "; " << dtypeName(weights) << " weights\n";
    profiled.print();
    return 0;
}

}  // namespace qgpu::cli
