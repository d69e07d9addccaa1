#include "CommandLine.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <utility>

#include "qgpu/core/Diagnostic.h"

namespace qgpu::cli {
namespace {

// A flag's value as a whole number in [min, max]; anything else (abc, 1.5, 12x, out of range) is a usage
// error naming the flag and the range.
long long integerFlag(const Command& c, const std::string& flag, const std::string& text, long long min,
                      long long max) {
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (text.empty() || *end != '\0' || errno == ERANGE || v < min || v > max)
        usageError(&c, flag + " takes a whole number from " + std::to_string(min) + " to " + std::to_string(max) +
                           ", not '" + text + "'");
    return v;
}

// A flag's value as a finite number in [min, max].
float numberFlag(const Command& c, const std::string& flag, const std::string& text, float min, float max) {
    char* end = nullptr;
    float v = std::strtof(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !std::isfinite(v) || v < min || v > max) {
        std::ostringstream range;
        range << min << " to " << max;
        usageError(&c, flag + " takes a number from " + range.str() + ", not '" + text + "'");
    }
    return v;
}

uint64_t seedFlag(const Command& c, const std::string& text) {
    errno = 0;
    char* end = nullptr;
    unsigned long long v = std::strtoull(text.c_str(), &end, 10);
    if (text.empty() || text[0] == '-' || *end != '\0' || errno == ERANGE)
        usageError(&c, "--seed takes a whole number from 0 to 18446744073709551615, not '" + text + "'");
    return v;
}

// One flag's parse: `value` gives the flag's value (the next argument) when it takes one.
struct FlagContext {
    const Command& command;
    const std::string& flag;
    std::function<std::string()> value;

    int integer(long long min, long long max) const { return int(integerFlag(command, flag, value(), min, max)); }
    float number(float min, float max) const { return numberFlag(command, flag, value(), min, max); }
    bool boolean() const {
        std::string text = value();
        if (text != "true" && text != "false") usageError(&command, flag + " takes true or false, not '" + text + "'");
        return text == "true";
    }
};
using FlagParser = std::function<void(Args&, const FlagContext&)>;

// -D's NAME or NAME=VALUE, with NAME an identifier.
std::string macroDefinition(const FlagContext& f) {
    std::string definition = f.value();
    std::string name = definition.substr(0, definition.find('='));
    bool identifier =
        !name.empty() && !std::isdigit((unsigned char)name[0]) &&
        std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum((unsigned char)c) || c == '_'; });
    if (!identifier)
        usageError(&f.command, "-D takes NAME or NAME=VALUE, NAME an identifier, not '" + definition + "'");
    return definition;
}

FlagParser text(std::string Args::*field) {
    return [field](Args& a, const FlagContext& f) { a.*field = f.value(); };
}
FlagParser toggle(bool Args::*field) {
    return [field](Args& a, const FlagContext&) { a.*field = true; };
}
FlagParser integer(int Args::*field, long long min, long long max) {
    return [=](Args& a, const FlagContext& f) { a.*field = f.integer(min, max); };
}

const std::map<std::string_view, FlagParser>& flagParsers() {
    static const std::map<std::string_view, FlagParser> parsers = {
        {"--launch", text(&Args::launch)},
        {"--emit", text(&Args::emit)},
        {"--backend", text(&Args::backend)},
        {"--engine", text(&Args::engine)},
        {"--out", text(&Args::out)},
        {"--dtype", text(&Args::dtype)},
        {"--geometry", text(&Args::geometry)},
        {"--host", text(&Args::host)},
        {"--gpu", text(&Args::gpu)},
        {"--combined", text(&Args::combined)},
        {"--mode", text(&Args::mode)},
        {"--prompt", text(&Args::prompt)},
        {"--kernels", text(&Args::kernels)},
        {"--weights", text(&Args::weights)},
        {"--device", text(&Args::device)},
        {"--measure", text(&Args::measure)},
        {"--dir", text(&Args::dir)},
        {"--llama", text(&Args::llama)},
        {"--prefill", integer(&Args::prefill, 1, 100000)},
        {"--decode", integer(&Args::decode, 1, 100000)},
        {"--runs", integer(&Args::runs, 1, 10000)},
        {"--max-tokens", integer(&Args::maxTokens, 1, 1 << 20)},
        {"--max-steps", integer(&Args::maxSteps, 1, 1000000)},
        {"--dense-runs", integer(&Args::denseRuns, 0, 10000)},
        {"--compile-seconds", [](Args& a, const FlagContext& f) { a.compile.limits.cpuSeconds = f.integer(1, 3600); }},
        {"--compile-memory",
         [](Args& a, const FlagContext& f) { a.compile.limits.memoryMiB = f.integer(64, 1 << 20); }},
        {"--max-unroll", [](Args& a, const FlagContext& f) { a.compile.limits.maxUnroll = f.integer(1, 1 << 20); }},
        {"--fmad", [](Args& a, const FlagContext& f) { a.compile.fuseMultiplyAdd = f.boolean(); }},
        {"-g", [](Args& a, const FlagContext&) { a.compile.debugInfo = true; }},
        {"--call-depth", [](Args& a, const FlagContext& f) { a.compile.callDepth = f.integer(1, 1024); }},
        {"-D", [](Args& a, const FlagContext& f) { a.compile.defines.push_back(macroDefinition(f)); }},
        {"--top-k", [](Args& a, const FlagContext& f) { a.sampling.topK = f.integer(0, 1 << 24); }},
        {"--temperature", [](Args& a, const FlagContext& f) { a.sampling.temperature = f.number(0, 100); }},
        {"--top-p", [](Args& a, const FlagContext& f) { a.sampling.topP = f.number(0, 1); }},
        {"--seed", [](Args& a, const FlagContext& f) { a.sampling.seed = seedFlag(f.command, f.value()); }},
        {"--prepare", [](Args&, const FlagContext&) {}},  // a flag: `given` holds it
        {"--think", toggle(&Args::think)},
        {"--quiet", toggle(&Args::quiet)},
        {"--check", toggle(&Args::check)},
        {"--suite", toggle(&Args::suite)},
        {"--profile", toggle(&Args::profile)},
    };
    return parsers;
}

bool isOptLevel(const std::string& s) { return s.size() == 3 && s.rfind("-O", 0) == 0 && s[2] >= '0' && s[2] <= '3'; }

// An argument that reads as a flag: a dash not followed by what starts a number or an expression ("-5",
// "-[1, 2]" and "-(x)" are values).
bool looksLikeFlag(const std::string& s) {
    return s.size() > 1 && s[0] == '-' && std::string("0123456789[( ").find(s[1]) == std::string::npos;
}

bool takes(const Command& c, const std::string& flag) {
    std::string_view name = isOptLevel(flag) ? std::string_view("-O") : std::string_view(flag);
    return std::find(c.flags.begin(), c.flags.end(), name) != c.flags.end();
}

// Every command: its usage (these texts make `qgpu help`), the flags it takes and how many arguments.
const std::vector<Command> kCommands = {
    {"asm",
     R"(  qgpu asm PROGRAM.qasm --launch SPEC.json [--backend reference|model] [--engine sparse|dense] [--gpu DIR]
           [--quiet] [--check] [--max-steps N]
      Runs an assembly program on the reference interpreter; prints every step and the final arrays.
      --check compares the arrays with the spec's "expect" and exits 1 on a difference. A launch that does
      not end within N warp steps (default 100000) is an error, on either backend. The other flags as `run`'s.
)",
     {"--launch", "--backend", "--engine", "--gpu", "--quiet", "--check", "--max-steps"},
     1},
    {"run",
     R"(  qgpu run KERNEL.cu --launch SPEC.json [--backend reference|model] [--engine sparse|dense] [--gpu DIR]
           [--quiet] [--check] [--max-steps N] [-O0..-O3] [-g] [--fmad true|false] [--compile-seconds S]
           [--compile-memory MIB] [--max-unroll N] [--call-depth N] [-D NAME[=VALUE]]...
      Compiles and lowers a CUDA kernel (the compile's flags as `compile`'s), then runs it like `asm`. The
      run's warnings (division by zero, a full call stack) print at their lines; a thread that stopped with
      its call stack full makes the run fail (exit code 1). What the kernel's printf calls print comes
      after the run, in the order the calls ran (their records fill a buffer of QGPU_PRINTF_WORDS words,
      default 256: -D QGPU_PRINTF_WORDS=1000 for a larger one).
      With -O0 -g the reference backend also prints every thread's CUDA variables as the launch ends. --backend model runs it inside the compiled
      GPU model (any launch of at most 32 warps): prints the tokens the model wrote, tokens/s and every
      thread's registers; --check is then the replay check against the interpreter (at a difference it
      prints both streams and the machines decoded at the first differing step, and exits 1), then the
      interpreter's stream teacher-forced through the model (dense: one prefill), every record predicted.
      --gpu DIR runs on the GPU layers of a checkpoint (build-gpu's or build --host's, sparse engine)
      instead of building them from code. The model stops after as many records as the interpreter's run
      of the launch writes; a long run reports progress on stderr, and Ctrl-C stops it (exit code 130).
)",
     {"--launch", "--backend", "--engine", "--gpu", "--quiet", "--check", "--max-steps", "-O", "-g", "--fmad",
      "--compile-seconds", "--compile-memory", "--max-unroll", "--call-depth", "-D"},
     1},
    {"eval",
     R"(  qgpu eval EXPR [--backend model|reference] [--engine sparse|dense] [--check] [--quiet]
      Evaluates an expression of chat's normal mode, e.g. "[1, 2, 3] @ [4, 5, 6]" (docs/expressions.md):
      each operation is a launch of a ready-made kernel, inside the GPU model by default. Prints every
      launch (kernel, shape, warp steps, tokens, tokens/s, its value) and the result. Every model launch is
      checked against the interpreter's run of it (records, registers, memory); --check also teacher-forces
      the interpreter's stream through the model, and exits 1 on a difference. The model's launches share
      the budget of a chat tool call (200,000 tokens, counted before each launch runs, and 60 s): past it
      the evaluation stops with exit code 1 and the advice to split the expression.
)",
     {"--backend", "--engine", "--check", "--quiet"},
     1},
    {"build-gpu",
     R"(  qgpu build-gpu --out DIR [--dtype bf16|f32]
      Writes the compiled GPU as a stock Qwen3.5 checkpoint with its layout file (circuit-layout.json).
)",
     {"--out", "--dtype"},
     0},
    {"build",
     R"(  qgpu build --host DIR --out DIR [--dtype bf16|f32]
      Splices the compiled GPU's layers in front of the Qwen3.5 checkpoint in --host (docs/splice.md): one
      stock checkpoint with a wider residual, the chip tokens after the host's vocabulary (tokenizer.json
      too), circuit-layout.json and splice.json. Matrices in --dtype (default: the host's), residual norms
      in f32. Writes a temporary beside OUT and renames it when complete.
)",
     {"--host", "--out", "--dtype"},
     0},
    {"check-splice",
     R"(  qgpu check-splice --host DIR --combined DIR [--prompt TEXT]
      The combined model against the host: KL of the next-token distribution over text (--prompt, or a
      built-in paragraph), the chip tokens' probability there, and the dot-product launch teacher-forced
      in the combined model. Exits 1 when the KL exceeds 1e-5 or a record is mispredicted.
)",
     {"--host", "--combined", "--prompt"},
     0},
    {"bench",
     R"(  qgpu bench [--runs N] [--suite [--kernels A,B,...]] [--dense-runs M] [--dtype f32|bf16] [--profile]
      The model backend's examples (dot_product.cu, straight_line, branches, every_alu_op) on the sparse
      engine (medians of N runs, default 5) and the first two on the dense engine (M runs, default 1):
      tokens/s, latency, speed-up.
      --suite: every suite kernel on the sparse engine: tokens, tokens/s, launch latency, exact, peak memory;
      with --dense-runs M (default 0: the dense engine decodes about 3 tokens/s, hours for the suite) also
      the dense engine's tokens/s and latency and the speed-up. --kernels: only these suite kernels (names
      without .cu). --dtype bf16: every weight rounded to bf16 first, as a bf16 checkpoint holds it
      (default f32). --profile: then where the sparse engine's time went, per phase, LM head and layer
      (microseconds per token), and the weights it multiplies per token.
)",
     {"--runs", "--suite", "--kernels", "--dense-runs", "--dtype", "--profile"},
     0},
    {"compile",
     R"(  qgpu compile KERNEL.cu [--emit ptx|blocks|map|variables] [-O0..-O3] [-g] [--fmad true|false]
             [--compile-seconds S] [--compile-memory MIB] [--max-unroll N] [--call-depth N]
             [-D NAME[=VALUE]]...
      Compiles CUDA (Clang in a worker process of its own); prints the PTX (default), the machine blocks, the
      line map (block, slot, CUDA line, PTX line), or where each CUDA variable lives (-O0 -g: a place in the
      thread's local-memory frame; optimized builds keep line tables only, as nvcc's -lineinfo). As CUDA compilers do by default, a * b + c becomes one
      fused multiply-add (one rounding) where Clang contracts it; --fmad false (nvcc's flag) rounds the
      product and the sum each. A compile may take S seconds of CPU time (default
      20) and MIB MiB of memory (default 2048), and `#pragma unroll` may ask for N copies (default 1024);
      past a limit, or when Clang crashes, the compile stops with an error at the line it was compiling.
      QGPU_COMPILE_SECONDS, QGPU_COMPILE_MEMORY_MIB and QGPU_MAX_UNROLL set the defaults (also the
      studio's and chat's). Recursive functions run on a call stack of N calls a thread (default 16, at most
      1024); each level takes a frame of the largest call in every thread's local memory. -D defines a
      macro, as Clang's -D does (also -DNAME).
)",
     {"--emit", "-O", "-g", "--fmad", "--compile-seconds", "--compile-memory", "--max-unroll", "--call-depth", "-D"},
     1},
    {"bench-compile",
     R"(  qgpu bench-compile [DIR] [--runs N]
      Times CUDA -> PTX and PTX -> blocks for every .cu in DIR (default resources/kernels): medians in ms.
)",
     {"--runs"},
     1},
    {"bench-model",
     R"(  qgpu bench-model [--geometry 2b|tiny] [--runs N] [--prefill T] [--decode T]
      Random weights at Qwen3.5 geometry, built in memory: prefill and decode tokens/s (medians) and
      peak memory.
)",
     {"--geometry", "--runs", "--prefill", "--decode"},
     0},
    {"chat",
     R"(  qgpu chat --host DIR [--mode normal|advanced|text] [--max-tokens N] [--temperature T] [--top-k K] [--top-p P]
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
)",
     {"--host", "--mode", "--max-tokens", "--temperature", "--top-k", "--top-p", "--seed", "--think", "--prompt",
      "--weights", "--device"},
     0},
    {"bench-host",
     R"(  qgpu bench-host [--dir DIR] [--weights f32,bf16,q8] [--device cpu|cuda|auto] [--runs N] [--prefill T]
                  [--decode T] [--llama LLAMA_CPP_DIR] [--prepare]
      A random-weight Qwen3.5-2B (bf16) and its combined checkpoint, written once into DIR (default
      ~/.cache/qgpu/bench-host, about 16 GB): per weight format, in a process of its own, load time, peak
      RSS, prefill tokens/s over T tokens (default 512) and decode tokens/s over T tokens (default 128),
      medians of N runs (default 3). --llama: llama-bench from that llama.cpp build on the same weights as
      DIR/qwen3.5-2b-random-{bf16,q8_0}.gguf, with the ratios; scripts/bench-host.sh prepares both.
      --prepare: only write the checkpoints.
)",
     {"--dir", "--weights", "--device", "--runs", "--prefill", "--decode", "--llama", "--prepare", "--measure"},
     0},
    {"circuit-costs",
     R"(  qgpu circuit-costs
      Builds every circuit primitive and prints its cost in layers, MLP neurons, residual dims, heads.
)",
     {},
     0},
    {"version",
     R"(  qgpu version
)",
     {},
     0},
    {"help",
     R"(  qgpu help [COMMAND]
      This text, or one command's usage (also `qgpu COMMAND --help`).
)",
     {},
     1},
};

}  // namespace

const std::vector<Command>& commands() { return kCommands; }

const Command* findCommand(std::string_view name) {
    if (name == "--version") name = "version";
    if (name == "--help" || name == "-h") name = "help";
    for (const Command& c : commands())
        if (c.name == name) return &c;
    return nullptr;
}

std::string fullUsage() {
    std::string text = "usage:\n";
    for (const Command& c : commands()) text += std::string(c.usage) + "\n";
    return text;
}

void usageError(const Command* command, const std::string& message) {
    std::string usage = command ? "usage:\n" + std::string(command->usage) : fullUsage();
    throw DiagnosticError(Diagnostic{"", 0, 0, message + "\n" + usage});
}

Args parseArgs(const Command& command, int argc, char** argv, int first) {
    Args a;
    a.command = &command;
    const std::string name(command.name);
    for (int i = first; i < argc; ++i) {
        std::string s = argv[i];
        if (s == "--help" || s == "-h") {
            a.help = true;
            continue;
        }
        if (!looksLikeFlag(s)) {
            if (int(a.positional.size()) == command.positionals)
                usageError(&command, "qgpu " + name + " takes " +
                                         (command.positionals ? "one argument" : "no argument") +
                                         " besides its flags, not also '" + s + "'");
            a.positional.push_back(s);
            continue;
        }
        // --flag=VALUE is --flag VALUE, and -DNAME is -D NAME
        std::optional<std::string> attached;
        if (size_t eq = s.find('='); s.rfind("--", 0) == 0 && eq != std::string::npos) {
            attached = s.substr(eq + 1);
            s.resize(eq);
        } else if (s.size() > 2 && s.rfind("-D", 0) == 0) {
            attached = s.substr(2);
            s.resize(2);
        }
        if (!takes(command, s))
            usageError(&command, "qgpu " + name + ": unknown option '" + s + "'; `qgpu " + name +
                                     " --help` lists the options it takes");
        a.given.insert(s);
        if (isOptLevel(s)) {
            a.compile.optLevel = s[2] - '0';
            continue;
        }
        FlagContext context{command, s, [&]() -> std::string {
                                if (attached) return *std::exchange(attached, std::nullopt);
                                if (i + 1 >= argc) usageError(&command, s + " needs a value");
                                return argv[++i];
                            }};
        flagParsers().at(s)(a, context);
        if (attached) usageError(&command, s + " takes no value, not '" + *attached + "'");
    }
    return a;
}

}  // namespace qgpu::cli
