// The kernel suite (resources/kernels) on the host executor: every kernel against its launch spec's
// "expect", plus the suite's own rules (file pairs, parameter names, machine limits, determinism).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "HostExecutor.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/Launch.h"
#include "qgpu/core/MachineSpec.h"

namespace {

namespace fs = std::filesystem;
using Arrays = std::vector<std::pair<std::string, std::vector<int64_t>>>;

const fs::path kKernelDir = fs::path(QGPU_SOURCE_DIR) / "resources" / "kernels";

std::string show(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

qgpu::LaunchSpec loadSpec(const std::string& name) {
    fs::path file = kKernelDir / (name + ".json");
    return qgpu::parseLaunchSpec(qgpu::readFile(file), file.string());
}

struct Param {
    std::string name;
    bool pointer = false;
};

// The parameters of `__global__ void NAME(...)` in NAME.cu: the last identifier of each, and whether it
// is a pointer.
std::vector<Param> kernelParams(const std::string& name, std::string& error) {
    std::string src = qgpu::readFile(kKernelDir / (name + ".cu"));
    std::smatch m;
    std::regex head("__global__\\s+void\\s+" + name + "\\s*\\(([^)]*)\\)");
    if (!std::regex_search(src, m, head)) {
        error = "no `__global__ void " + name + "(...)` in " + name + ".cu";
        return {};
    }
    std::vector<Param> params;
    std::stringstream list(m[1].str());
    std::string piece;
    std::regex last("([A-Za-z_][A-Za-z0-9_]*)\\s*$");
    while (std::getline(list, piece, ',')) {
        std::smatch id;
        if (!std::regex_search(piece, id, last)) {
            error = "cannot read parameter \"" + piece + "\"";
            return {};
        }
        params.push_back({id[1].str(), piece.find('*') != std::string::npos});
    }
    return params;
}

TEST(KernelSuite, EveryKernelHasALaunchSpecAndIsCompiledIn) {
    std::vector<std::string> cu, json;
    for (const auto& e : fs::directory_iterator(kKernelDir)) {
        if (e.path().extension() == ".cu") cu.push_back(e.path().stem().string());
        if (e.path().extension() == ".json") json.push_back(e.path().stem().string());
    }
    std::sort(cu.begin(), cu.end());
    std::sort(json.begin(), json.end());
    EXPECT_EQ(cu, json) << "every NAME.cu needs a NAME.json and the other way round";
    EXPECT_EQ(cu, hostKernelNames()) << "re-run cmake to pick up added or removed kernels";
    EXPECT_GE(cu.size(), 52u);
}

TEST(KernelSuite, UnknownKernelThrows) {
    qgpu::LaunchSpec spec;
    EXPECT_THROW(runOnHost("no_such_kernel", spec), std::runtime_error);
}

class SuiteKernel : public ::testing::TestWithParam<std::string> {};

// The launch fits the machine, and its arguments are the kernel's parameters: same names, same order,
// arrays for pointers and scalars for the rest.
TEST_P(SuiteKernel, LaunchSpecFitsKernelAndMachine) {
    const std::string& name = GetParam();
    qgpu::LaunchSpec spec = loadSpec(name);
    EXPECT_NO_THROW(qgpu::validateLaunch(spec, qgpu::MachineSpec::standard()));
    std::string error;
    std::vector<Param> params = kernelParams(name, error);
    ASSERT_TRUE(error.empty()) << error;
    ASSERT_EQ(params.size(), spec.args.size()) << name << ".cu and " << name << ".json disagree on the arguments";
    for (size_t i = 0; i < params.size(); ++i) {
        EXPECT_EQ(params[i].name, spec.args[i].name) << "argument " << i;
        EXPECT_EQ(params[i].pointer, spec.args[i].isArray) << "argument " << i << " (" << params[i].name << ")";
    }
}

// The host results equal "expect", which names every array argument; three runs (different thread
// interleavings) agree.
TEST_P(SuiteKernel, HostMatchesExpect) {
    const std::string& name = GetParam();
    qgpu::LaunchSpec spec = loadSpec(name);
    Arrays got = runOnHost(name, spec);
    for (const auto& [array, values] : got) {
        auto it = std::find_if(spec.expect.begin(), spec.expect.end(), [&](const auto& e) { return e.first == array; });
        if (it == spec.expect.end()) {
            ADD_FAILURE() << name << ".json: \"expect\" lacks \"" << array << "\"; host gives " << show(values);
            continue;
        }
        EXPECT_EQ(it->second, values) << name << " \"" << array << "\"\n  expect " << show(it->second) << "\n  host   "
                                      << show(values);
    }
    for (int run = 0; run < 2; ++run) EXPECT_EQ(runOnHost(name, spec), got) << name << " is not deterministic";
}

INSTANTIATE_TEST_SUITE_P(Kernels, SuiteKernel, ::testing::ValuesIn(hostKernelNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

}  // namespace
