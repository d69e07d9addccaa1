// The qgpu command line: each command's usage and the flags it takes, and the parse of one command's
// arguments against them (a flag the command does not take is refused, naming itself and the command).
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "qgpu/compiler/CudaCompiler.h"
#include "qgpu/compiler/gpu/Stream.h"
#include "qgpu/runtime/text/Sampler.h"

namespace qgpu::cli {

struct Command {
    std::string_view name;
    std::string_view usage;               // the command's lines of the usage text
    std::vector<std::string_view> flags;  // the flags it takes; "-O" stands for -O0..-O3
    int positionals = 0;                  // how many arguments besides the flags it takes at most
};

// Every command, in the order the usage lists them.
const std::vector<Command>& commands();
// The command called `name` (aliases: --version, --help, -h), or nullptr.
const Command* findCommand(std::string_view name);
// "usage:" and every command's usage.
std::string fullUsage();

// A usage error of `command` (or of the command line as a whole when null): the message, then that command's
// usage (or the whole usage).
[[noreturn]] void usageError(const Command* command, const std::string& message);

struct Args {
    const Command* command = nullptr;  // the command they are the arguments of
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
    bool think = false, help = false;
    int prefill = 64, decode = 16;
    bool quiet = false, check = false, suite = false, profile = false;
    int runs = 5, denseRuns = -1;          // -1: the command's default
    CudaCompileOptions compile;            // -O0..-O3 and the compile's limits
    int maxSteps = gpu::kDefaultMaxSteps;  // run and asm: the launch's bound in warp steps
};

// argv[first..argc) as the arguments of `command`. `--help` or `-h` anywhere sets `help`.
Args parseArgs(const Command& command, int argc, char** argv, int first = 2);

}  // namespace qgpu::cli
