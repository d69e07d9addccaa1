// The qgpu tool from the command line: `eval` (the value, the launches, an error that points at its column),
// `run --backend model` (the replay check; a checkpoint's GPU layers with --gpu) and `bench --suite --kernels`.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "qgpu/core/Files.h"

namespace fs = std::filesystem;

namespace {

struct Result {
    int status;
    std::string out, err;
};

// Runs `qgpu ARGS` in the resource directory.
Result runQgpu(const std::string& args) {
    fs::path dir = fs::temp_directory_path() / ("qgpu-cli-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::string cmd = "cd " + std::string(QGPU_RESOURCE_DIR) + " && " + QGPU_CLI_PATH + " " + args + " >" +
                      (dir / "out").string() + " 2>" + (dir / "err").string();
    int rc = std::system(cmd.c_str());
    Result r{WEXITSTATUS(rc), qgpu::readFile(dir / "out"), qgpu::readFile(dir / "err")};
    fs::remove_all(dir);
    return r;
}

Result eval(const std::string& args) { return runQgpu("eval " + args); }

// Each command line fails with exit code 1, its message on stderr and nothing on stdout.
void expectUsageErrors(const std::vector<std::pair<std::string, std::string>>& cases) {
    for (const auto& [args, message] : cases) {
        Result r = runQgpu(args);
        EXPECT_EQ(r.status, 1) << args;
        EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
        EXPECT_EQ(r.out, "") << args;
    }
}

const std::string kDotProduct = "examples/dot_product.cu --launch examples/dot_product.json";

}  // namespace

TEST(EvalCli, PrintsTheValueAndEachLaunch) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    Result r = eval("'sum([[1, 2], [3, 4]] @ [5, 6]) * 2 - max([1, 9, 3])' --backend reference");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("op_matvec grid 1 block 4"), std::string::npos) << r.out;
    EXPECT_EQ(r.out.substr(r.out.rfind('\n', r.out.size() - 2) + 1), "103\n") << r.out;
}

TEST(EvalCli, ErrorsPointAtTheirColumn) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    Result r = eval("'[1, 2, 3] @ [4, 5'");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("<expression>:1:18: error: expected ',' or ']'"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("  [1, 2, 3] @ [4, 5\n                   ^"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");           // nothing ran, the model was not even built
    EXPECT_EQ(eval("").status, 1);  // no expression: the usage
}

TEST(RunCli, TheDotProductInTheModelPassesTheReplayCheck) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    Result r = runQgpu("run " + kDotProduct + " --backend model --check");
    EXPECT_EQ(r.status, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("30 tokens fed, 18 written"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("out = [32]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("check: ok (18 records"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("teacher-forced, every record predicted"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("building the GPU model from code... 17 layers in"), std::string::npos) << r.err;
}

TEST(RunCli, ADebugBuildListsWhereEachVariableLivesAndPrintsEveryThreadsVariablesAtTheEnd) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    Result places = runQgpu("compile kernels/optional_bias.cu -O0 -g --emit variables");
    EXPECT_EQ(places.status, 0) << places.err;
    EXPECT_NE(places.out.find("optional_bias: acc  int  line 7  lines 4-10  local memory, frame bytes 44..47"),
              std::string::npos)
        << places.out;
    Result run = runQgpu("run kernels/optional_bias.cu --launch kernels/optional_bias.json -O0 -g --quiet --check");
    EXPECT_EQ(run.status, 0) << run.err;
    EXPECT_NE(run.out.find("thread 2 (block 0, 2): bias = &bias[0], weight = &weight[0], in = &in[0], out = "
                           "&out[0], rows = 4, cols = 3, r = 2, acc = 285, c = 3"),
              std::string::npos)
        << run.out;
    Result optimized = runQgpu("compile kernels/optional_bias.cu -g --emit variables");
    EXPECT_NE(optimized.err.find("-g with -O2 keeps line tables only"), std::string::npos) << optimized.err;
    EXPECT_NE(optimized.out.find("no variable locations (build with -O0 -g"), std::string::npos) << optimized.out;
}

TEST(RunCli, AThreadWhoseCallStackIsFullWarnsAtTheCallAndFailsTheRun) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    const std::string quicksort = "kernels/recursive_quicksort.cu --launch kernels/recursive_quicksort.json --quiet";
    Result deepEnough = runQgpu("run " + quicksort + " --check");
    EXPECT_EQ(deepEnough.status, 0) << deepEnough.err;
    EXPECT_EQ(deepEnough.err, "");
    Result shallow = runQgpu("run " + quicksort + " --call-depth 4");
    EXPECT_EQ(shallow.status, 1);
    EXPECT_NE(shallow.err.find("kernels/recursive_quicksort.cu:22: warning: the call stack is full: a recursive call "
                               "deeper than the program's call depth (--call-depth)"),
              std::string::npos)
        << shallow.err;
    EXPECT_NE(shallow.err.find("error: a thread stopped with its call stack full"), std::string::npos) << shallow.err;
    Result model = runQgpu("run " + quicksort + " --call-depth 4 --backend model --check");
    EXPECT_EQ(model.status, 1);
    EXPECT_NE(model.out.find("check: ok"), std::string::npos) << model.out;  // the model computes the same
    EXPECT_NE(model.err.find("kernels/recursive_quicksort.cu:22: warning: the call stack is full"), std::string::npos)
        << model.err;
    EXPECT_NE(model.err.find("error: a thread stopped with its call stack full"), std::string::npos) << model.err;
    expectUsageErrors({{"compile kernels/recursive_quicksort.cu --call-depth 0", "--call-depth"}});
}

TEST(RunCli, AMissingCheckpointOrAGpuWithoutTheModelBackendIsAClearError) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    Result missing = runQgpu("run " + kDotProduct + " --backend model --gpu /nonexistent/qgpu-ckpt");
    EXPECT_EQ(missing.status, 1) << missing.err;
    EXPECT_NE(missing.err.find("/nonexistent/qgpu-ckpt"), std::string::npos) << missing.err;
    EXPECT_EQ(missing.out, "");
    Result reference = runQgpu("run " + kDotProduct + " --gpu /tmp");
    EXPECT_EQ(reference.status, 1);
    EXPECT_NE(reference.err.find("--gpu needs --backend model"), std::string::npos) << reference.err;
    Result dense = runQgpu("run " + kDotProduct + " --backend model --engine dense --gpu /tmp");
    EXPECT_EQ(dense.status, 1);
    EXPECT_NE(dense.err.find("--gpu runs on the sparse engine"), std::string::npos) << dense.err;
}

TEST(BenchCli, AnUnknownSuiteKernelIsNamedBeforeAnythingRuns) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    Result r = runQgpu("bench --suite --kernels vec_add,no_such_kernel --runs 1");
    EXPECT_EQ(r.status, 1);
    EXPECT_NE(r.err.find("--kernels: error: no suite kernel 'no_such_kernel'"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");
}

TEST(BenchCli, TheProfileSaysWhereTheTokensTimeWent) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    Result r = runQgpu("bench --suite --kernels vec_add --runs 1 --profile");
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("| vec_add | 8 | 160 |"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("where the sparse engine's time went: "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" of them through the LM head; microseconds per token"), std::string::npos) << r.out;
    for (const char* part : {"| qkv channels and conv |", "| final norm and LM head |", "| 16 |"})
        EXPECT_NE(r.out.find(part), std::string::npos) << part << "\n" << r.out;
    EXPECT_NE(r.out.find("weights multiplied per token: at most "), std::string::npos) << r.out;
}

TEST(Cli, BadFlagsAreRefusedByNameWithWhatTheyTake) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"chat --host /nonexistent --max-tokens abc", "--max-tokens takes a whole number from 1 to 1048576, not 'abc'"},
        {"chat --host /nonexistent --max-tokens 12x", "not '12x'"},
        {"chat --host /nonexistent --temperature nan", "--temperature takes a number from 0 to 100, not 'nan'"},
        {"chat --host /nonexistent --top-p 2", "--top-p takes a number from 0 to 1, not '2'"},
        {"chat --host /nonexistent --top-k -3", "--top-k takes a whole number from 0 to 16777216, not '-3'"},
        {"chat --host /nonexistent --seed -1", "--seed takes a whole number from 0 to"},
        {"bench --runs -1", "--runs takes a whole number from 1 to 10000, not '-1'"},
        {"bench --runs 99999999999999999999", "--runs takes a whole number"},
        {"compile examples/dot_product.cu --check", "qgpu compile: unknown option '--check'; `qgpu compile --help`"},
        {"eval \"[1]\" --gpu /tmp", "qgpu eval: unknown option '--gpu'"},
        {"asm x.qasm -O3", "qgpu asm: unknown option '-O3'"},
        {"run --bogus", "qgpu run: unknown option '--bogus'"},
        {"circuit-costs --runs 3", "qgpu circuit-costs: unknown option '--runs'"},
        {"bench-model extra", "qgpu bench-model takes no argument besides its flags, not also 'extra'"},
        {"compile a.cu b.cu", "qgpu compile takes one argument besides its flags, not also 'b.cu'"},
        {"bench --kernels vec_add", "--kernels picks suite kernels: give --suite too"},
        {"help nosuch", "qgpu help: unknown command 'nosuch'"},
        {"compile examples/dot_product.cu --fmad no", "--fmad takes true or false, not 'no'"},
        {"bench --runs=0", "--runs takes a whole number from 1 to 10000, not '0'"},
        {"run examples/dot_product.cu --quiet=yes", "--quiet takes no value, not 'yes'"},
        {"run examples/dot_product.cu -D 3x", "-D takes NAME or NAME=VALUE, NAME an identifier, not '3x'"},
        {"compile examples/dot_product.cu -D=x", "-D takes NAME or NAME=VALUE, NAME an identifier, not '=x'"},
    };
    expectUsageErrors(cases);
}

TEST(Cli, RunPrintsWhatPrintfPrintedAndAFailedAssertionFailsTheRun) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    Result r = runQgpu("run kernels/printf_trace.cu --launch kernels/printf_trace.json --quiet --check");
    EXPECT_EQ(r.status, 0) << r.err;
    EXPECT_NE(r.out.find("finished in"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\nlaunch: 2 blocks of 4 threads, n = 7\n[0,0] x[ 0] =    0.500  squared 0.25"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("__qgpu_printf_buffer"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("check: ok"), std::string::npos) << r.out;

    fs::path dir = fs::temp_directory_path() / ("qgpu-assert-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::FILE* f = std::fopen((dir / "k.cu").c_str(), "w");
    std::fputs(
        "#include <assert.h>\n__global__ void k(int* a) {\n    assert(a[threadIdx.x] != 2);\n"
        "    a[threadIdx.x] = 7;\n}\n",
        f);
    std::fclose(f);
    f = std::fopen((dir / "k.json").c_str(), "w");
    std::fputs(R"({"block": 4, "args": [{"name": "a", "array": [1, 2, 3, 4]}]})", f);
    std::fclose(f);
    std::string run = "run " + (dir / "k.cu").string() + " --launch " + (dir / "k.json").string() + " --quiet";
    for (const std::string& backend : {"", " --backend model"}) {
        Result failed = runQgpu(run + backend);
        EXPECT_EQ(failed.status, 1) << backend;
        EXPECT_NE(failed.err.find("k.cu:3: void k(int *): block: [0,0,0], thread: [1,0,0] Assertion `a[threadIdx.x] "
                                  "!= 2` failed.\nerror: a device assertion failed (above)"),
                  std::string::npos)
            << backend << ": " << failed.err;
        EXPECT_NE(failed.out.find("a = [7, 2, 7, 7]"), std::string::npos) << failed.out;
    }
    Result disabled = runQgpu(run + " -DNDEBUG");
    EXPECT_EQ(disabled.status, 0) << disabled.err;
    EXPECT_NE(disabled.out.find("a = [7, 7, 7, 7]"), std::string::npos) << disabled.out;
    fs::remove_all(dir);
}

TEST(Cli, EveryCommandPrintsItsOwnUsageOnHelp) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    for (const char* cmd : {"asm", "run", "eval", "build-gpu", "build", "check-splice", "bench", "compile",
                            "bench-compile", "bench-model", "chat", "bench-host", "circuit-costs", "version", "help"}) {
        for (const std::string& args :
             {std::string(cmd) + " --help", std::string(cmd) + " -h", "help " + std::string(cmd)}) {
            Result r = runQgpu(args);
            EXPECT_EQ(r.status, 0) << args << ": " << r.err;
            std::string head = "usage:\n  qgpu " + std::string(cmd);
            EXPECT_TRUE(r.out.rfind(head, 0) == 0 && (r.out[head.size()] == ' ' || r.out[head.size()] == '\n'))
                << args << ": " << r.out;
            EXPECT_EQ(r.out.find("qgpu bench-model", 0) != std::string::npos, std::string(cmd) == "bench-model")
                << args;
        }
    }
    Result all = runQgpu("help");
    EXPECT_EQ(all.status, 0);
    EXPECT_NE(all.out.find("qgpu bench-model"), std::string::npos) << all.out;
    EXPECT_NE(all.out.find("qgpu asm"), std::string::npos) << all.out;
}

TEST(Cli, ACommandTheCommandLineDoesNotKnowIsRefused) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    Result unknown = runQgpu("frobnicate --x");
    EXPECT_EQ(unknown.status, 2);
    EXPECT_NE(unknown.err.find("unknown command 'frobnicate'; `qgpu help` lists the commands"), std::string::npos)
        << unknown.err;
}

TEST(Cli, BuildGpuChecksOutBeforeBuildingAndAnInterruptLeavesNothing) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    fs::path dir = fs::temp_directory_path() / ("qgpu-out-" + std::to_string(::getpid()));
    fs::create_directories(dir / "exists");
    Result exists = runQgpu("build-gpu --out " + (dir / "exists").string());
    EXPECT_EQ(exists.status, 1);
    EXPECT_NE(exists.err.find("already exists; give a new directory"), std::string::npos) << exists.err;
    EXPECT_EQ(exists.err.find("building"), std::string::npos) << "checked before building: " << exists.err;
    Result unwritable = runQgpu("build-gpu --out /proc/qgpu/out");
    EXPECT_EQ(unwritable.status, 1);
    EXPECT_NE(unwritable.err.find("/proc/qgpu/out: error: cannot create a temporary directory beside it"),
              std::string::npos)
        << unwritable.err;
    EXPECT_EQ(unwritable.err.find("internal error"), std::string::npos) << unwritable.err;

    // Ctrl-C (or any catchable signal that ends a process) while the GPU builds: exit 128 + the signal, no
    // OUT, no temporary and no lock left; the user's own OUT.partial untouched.
    fs::path out = dir / "gpu";
    fs::create_directories(out.string() + ".partial");
    qgpu::writeTextFile(out.string() + ".partial/mine.txt", "the user's");
    for (const auto& [name, number] : {std::pair{"INT", 2}, {"HUP", 1}, {"QUIT", 3}, {"PIPE", 13}, {"TERM", 15}}) {
        std::string script = std::string(QGPU_CLI_PATH) + " build-gpu --out " + out.string() +
                             " >/dev/null 2>&1 & pid=$!; while ! ls -d " + out.string() +
                             ".partial-* >/dev/null 2>&1; do sleep 0.05; done; sleep 0.5; kill -" + name +
                             " $pid; wait $pid; exit $?";
        int rc = std::system(("bash -c '" + script + "'").c_str());
        EXPECT_EQ(WEXITSTATUS(rc), 128 + number) << name;
        for (const auto& entry : fs::directory_iterator(dir))
            EXPECT_TRUE(entry.path().filename() == "exists" || entry.path().filename() == "gpu.partial")
                << name << " left " << entry.path();
    }
    EXPECT_EQ(qgpu::readFile(out.string() + ".partial/mine.txt"), "the user's");
    fs::remove_all(dir);
}

TEST(RunCli, AModelLaunchThatCannotEndIsRefusedAtTheStepLimitItNames) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    fs::path dir = fs::temp_directory_path() / ("qgpu-endless-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    qgpu::writeTextFile(dir / "endless.qasm", "entry:\n    jmp entry\n");
    qgpu::writeTextFile(dir / "endless.json", R"({"block": 4})");
    std::string files = (dir / "endless.qasm").string() + " --launch " + (dir / "endless.json").string();
    for (const char* backend : {"model", "reference"}) {
        Result r = runQgpu("asm " + files + " --backend " + backend + " --max-steps 500 --quiet");
        EXPECT_EQ(r.status, 1) << backend;
        EXPECT_NE(r.err.find("within 500 warp steps"), std::string::npos) << backend << ": " << r.err;
        EXPECT_NE(r.err.find("--max-steps"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    }
    Result check = runQgpu("asm " + files + " --backend model --check --max-steps 500");
    EXPECT_EQ(check.status, 1);
    EXPECT_EQ(check.err.find("internal error"), std::string::npos) << check.err;
    fs::remove_all(dir);
}

TEST(RunCli, APartialBarrierIsAUserErrorAtItsLineOnBothBackends) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    fs::path dir = fs::temp_directory_path() / ("qgpu-barrier-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    qgpu::writeTextFile(dir / "partial.cu",
                        "__global__ void partial(const int* a, int* out) {\n  __shared__ int s[8];\n"
                        "  int t = threadIdx.x;\n  s[t] = a[t];\n  if (t < 2)\n    __syncthreads();\n"
                        "  out[t] = s[7 - t];\n}\n");
    qgpu::writeTextFile(dir / "partial.json",
                        R"({"block": 8, "args": [{"name": "a", "array": [1, 2, 3, 4, 5, 6, 7, 8]}, )"
                        R"({"name": "out", "zeros": 8}]})");
    std::string files = (dir / "partial.cu").string() + " --launch " + (dir / "partial.json").string();
    for (const char* backend : {"model --check", "model", "reference"}) {
        Result r = runQgpu("run " + files + " --backend " + backend + " --quiet");
        EXPECT_EQ(r.status, 1) << backend << ": " << r.err;
        EXPECT_NE(r.err.find("partial.cu:6: divergent barrier: warp 0"), std::string::npos) << backend << ": " << r.err;
        EXPECT_NE(r.err.find("lanes {0,1} while lane 2"), std::string::npos) << r.err;
        EXPECT_EQ(r.err.find("internal error"), std::string::npos) << r.err;
    }
    fs::remove_all(dir);
}

TEST(RunCli, ALongModelRunReportsProgressUnderQuietAndStopsOnCtrlC) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    fs::path dir = fs::temp_directory_path() / ("qgpu-long-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // One lane loops 20,000 times: about 150,000 records, minutes in the model.
    qgpu::writeTextFile(
        dir / "long.json",
        R"({"block": 4, "args": [{"name": "n", "array": [20000, 1, 2, 3]}, {"name": "out", "zeros": 4}]})");
    fs::path err = dir / "err";
    std::string script = std::string(QGPU_CLI_PATH) + " asm " + QGPU_RESOURCE_DIR +
                         "/examples/loop_sum.qasm --launch " + (dir / "long.json").string() +
                         " --backend model --quiet >/dev/null 2>" + err.string() +
                         " & pid=$!; for i in $(seq 200); do grep -q \"records written\" " + err.string() +
                         " && break; sleep 0.1; done; kill -INT $pid; wait $pid; exit $?";
    int rc = std::system(("bash -c '" + script + "'").c_str());
    std::string text = qgpu::readFile(err);
    EXPECT_EQ(WEXITSTATUS(rc), 130) << text;
    EXPECT_NE(text.find("records written"), std::string::npos) << text;
    EXPECT_NE(text.find("interrupted: the model had written "), std::string::npos) << text;
    fs::remove_all(dir);
}
