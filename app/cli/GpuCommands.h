// The CLI's commands for the GPU inside the model: wiring over runtime/GpuModel.h.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "qgpu/core/Isa.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/ProcessMemory.h"
#include "qgpu/runtime/GpuModel.h"

namespace qgpu::cli {

// A program file (.cu compiled by Clang, or .qasm) with its launch (the .json beside it), linked.
struct ProgramFile {
    Program program;
    LaunchSpec launch;
};
ProgramFile loadLinked(const std::filesystem::path& path);

// GpuModel::open (the GPU layers of the checkpoint in `dir`, or built from code for `engines` when `dir` is
// empty), saying so on stderr with the time it took.
std::unique_ptr<GpuModel> openWithProgress(const std::string& dir,
                                           const std::vector<Engine>& engines = {Engine::Sparse},
                                           DType weights = DType::F32);
// `qgpu run ... --backend model`: runs the linked program in the model, prints the records the model wrote
// (unless quiet), tokens/s, the registers and the arrays as the model's state holds them; with `check`,
// the replay check against the interpreter (records, registers, memory), then the interpreter's stream
// teacher-forced through the model.
// `gpuDir`: a checkpoint whose GPU layers to run on (GpuModel::load), or "" to build them from code. The
// interpreter's run bounds the model's: a launch that does not end within `maxSteps` warp steps is refused
// before the model starts. Ctrl-C stops the model (exit code 130); a long run reports progress on stderr.
int runOnModel(const Program& linked, const LaunchSpec& launch, Engine engine, const std::string& gpuDir, bool quiet,
               bool check, int maxSteps);
// Prints a run's located warnings on stderr; when one says a thread stopped with its call stack full, also
// that the results are incomplete, and returns true (the run fails).
bool reportWarnings(const Program& program, const std::vector<StepEvent>& history);
// Prints what the launch's printf calls printed (from its final global memory), and on stderr a failed device
// assertion's message and how many words of records did not fit the buffer. True when an assertion failed
// (the run fails).
bool reportPrintf(const std::vector<uint32_t>& global, const MemoryMap& map);
// `qgpu build-gpu --out DIR`: writes the compiled GPU as a stock checkpoint with its layout file.
int buildGpu(const std::string& out, DType dtype);
// `qgpu bench`: the model-backend examples on the sparse engine (median of `runs`) and, for the short ones,
// the dense engine (median of `denseRuns`, none with 0): tokens/s, latency and the speed-up.
// With `profile`, also where the sparse engine's time went (SparseModel::Profile), after the table.
int benchGpu(int runs, int denseRuns, DType weights, bool profile, const std::string& resourceDir);
// `qgpu bench --suite`: every suite kernel in the model (sparse engine): tokens, tokens/s, launch latency
// (median of `runs`), whether it matched the interpreter, and the process's peak memory so far; with
// `denseRuns` > 0 also the dense engine's (median of `denseRuns`) and the speed-up. `only`: a comma-separated
// list of kernel names to run ("" for all); an unknown name is a DiagnosticError.
int benchSuite(int runs, int denseRuns, DType weights, const std::string& only, bool profile,
               const std::string& resourceDir);
// The median of a few timings (the upper one of an even count).
double median(std::vector<double> v);

}  // namespace qgpu::cli
