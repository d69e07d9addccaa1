// Every kernel of resources/kernels compiles in-process, lowers, runs on the reference interpreter and
// matches the host executor (an independent implementation) word for word, at -O1, -O2 and -O3.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "HostExecutor.h"
#include "qgpu/core/Files.h"
#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/DevicePrintf.h"
#include "qgpu/core/Trace.h"

using namespace qgpu;
namespace fs = std::filesystem;

namespace {

const fs::path kKernels = fs::path(QGPU_SOURCE_DIR) / "resources/kernels";

std::string show(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

struct SuiteCase {
    std::string kernel;
    int optLevel;
};

std::vector<SuiteCase> cases() {
    std::vector<SuiteCase> out;
    for (const auto& name : hostKernelNames())
        for (int o : {1, 2, 3}) out.push_back({name, o});
    return out;
}

void PrintTo(const SuiteCase& c, std::ostream* os) { *os << c.kernel << " -O" << c.optLevel; }

class Suite : public ::testing::TestWithParam<SuiteCase> {};

}  // namespace

TEST_P(Suite, InterpreterMatchesHostExecutor) {
    const SuiteCase& c = GetParam();
    fs::path cu = kKernels / (c.kernel + ".cu");
    LaunchSpec launch = parseLaunchSpec(readFile(kKernels / (c.kernel + ".json")), c.kernel + ".json");
    CudaCompileOptions opts;
    opts.optLevel = c.optLevel;
    CompiledKernel k = compileKernel(readFile(cu), c.kernel + ".cu", MachineSpec::standard(), opts);
    MachineSpec spec = MachineSpec::standard();
    LinkedLaunch linked = linkLaunch(k.kernel.program, launch, spec);
    const MemoryMap& map = linked.map;
    Interpreter interp(linked.program, launch, spec);
    MachineState state = runToCompletion(interp);

    auto host = runOnHost(c.kernel, launch);
    std::vector<std::string> hostPrinted = hostPrintedTexts();
    ASSERT_EQ(host.size(), map.arrays.size() - k.kernel.program.globals.size());  // the launch's arrays
    for (const auto& [name, expected] : host) {
        std::vector<int64_t> got = readArray(state, *map.find(name));
        EXPECT_EQ(got, expected) << c.kernel << " -O" << c.optLevel << ", array " << name
                                 << "\n  interpreter:   " << show(got) << "\n  host executor: " << show(expected)
                                 << "\n"
                                 << formatLowered(k.kernel);
    }
    for (const auto& [name, expected] : launch.expect)
        EXPECT_EQ(readArray(state, *map.find(name)), expected) << "\"expect\" of " << c.kernel << ", array " << name;
    EXPECT_EQ(readDevicePrintf(state.global, map).sortedTexts(), hostPrinted) << c.kernel << "'s printf";
}

INSTANTIATE_TEST_SUITE_P(Kernels, Suite, ::testing::ValuesIn(cases()), [](const auto& info) {
    return info.param.kernel + "_O" + std::to_string(info.param.optLevel);
});

TEST(SuiteCoverage, AtLeastFortyNineKernelsWithLaunchSpecs) {
    auto names = hostKernelNames();
    EXPECT_GE(names.size(), 49u);
    for (const auto& n : names) EXPECT_TRUE(fs::exists(kKernels / (n + ".json"))) << n;
}

namespace {

std::string linkError(const std::string& kernel, const std::string& launchJson) {
    CompiledKernel k = compileKernel(readFile(kKernels / (kernel + ".cu")), kernel + ".cu");
    try {
        LaunchSpec launch = parseLaunchSpec(launchJson);
        linkLaunch(k.kernel.program, launch);
    } catch (const DiagnosticError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

// Launch-side errors for compiled kernels: each names what is wrong and what to do.
TEST(SuiteLaunchErrors, TooManyThreadsArraysTooLargeAndMismatchedArguments) {
    const std::string args =
        R"("args": [{"name":"a","zeros":4},{"name":"b","zeros":4},{"name":"c","zeros":4},{"name":"n","scalar":4}])";
    EXPECT_NE(linkError("vec_add", R"({"block": 33, )" + args + "}").find("exceeds the machine's 32"),
              std::string::npos);
    EXPECT_NE(linkError("vec_add", R"({"grid": 5, "block": 32, )" + args + "}").find("at most 128 threads"),
              std::string::npos);
    EXPECT_NE(linkError("vec_add", R"({"block": 4, "args": [{"name":"a","zeros":1000},{"name":"b","zeros":100},)"
                                   R"({"name":"c","zeros":4},{"name":"n","scalar":4}]})")
                  .find("words of global memory"),
              std::string::npos);
    EXPECT_NE(linkError("vec_add", R"({"block": 4, "args": [{"name":"a","zeros":4}]})").find("takes 4 parameters"),
              std::string::npos);
    EXPECT_NE(linkError("vec_add", R"({"block": 4, "args": [{"name":"a","zeros":4},{"name":"b","zeros":4},)"
                                   R"({"name":"c","zeros":4},{"name":"n","zeros":4}]})")
                  .find("is a scalar: give a \"scalar\""),
              std::string::npos);
    EXPECT_EQ(linkError("vec_add", R"({"block": 4, )" + args + "}"), "");
}
