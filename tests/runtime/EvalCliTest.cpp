// `qgpu eval` from the command line: the value, the launches, and an error that points at its column.
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

Result eval(const std::string& args) {
    fs::path dir = fs::temp_directory_path() / ("qgpu-eval-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::string cmd =
        std::string(QGPU_CLI_PATH) + " eval " + args + " >" + (dir / "out").string() + " 2>" + (dir / "err").string();
    int rc = std::system(cmd.c_str());
    Result r{WEXITSTATUS(rc), qgpu::readFile(dir / "out"), qgpu::readFile(dir / "err")};
    fs::remove_all(dir);
    return r;
}

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
