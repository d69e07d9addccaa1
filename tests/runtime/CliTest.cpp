// The qgpu tool from the command line: `eval` (the value, the launches, an error that points at its column),
// `run --backend model` (the replay check; a checkpoint's GPU layers with --gpu) and `bench --suite --kernels`.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

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
    EXPECT_NE(r.out.find("29 tokens fed, 18 written"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("out = [32]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("check: ok (18 records"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("teacher-forced, every record predicted"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("building the GPU model from code... 17 layers in"), std::string::npos) << r.err;
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
