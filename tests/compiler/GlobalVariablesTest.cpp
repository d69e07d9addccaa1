// Variables in global memory (__device__ and __constant__ ones, and local tables with an initializer that
// Clang keeps there) and dynamic shared memory (extern __shared__), on the reference interpreter.
#include <gtest/gtest.h>

#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/Trace.h"

using namespace qgpu;

namespace {

// Runs `source` over `launchJson` to the end; the final contents of every array and variable by name.
std::map<std::string, std::vector<int32_t>> runToEnd(const std::string& source, const std::string& launchJson) {
    Program program = compileKernel(source, "k.cu").kernel.program;
    LaunchSpec launch = parseLaunchSpec(launchJson, "k.json");
    LinkedLaunch linked = linkLaunch(program, launch);
    Interpreter interp(linked.program, launch, MachineSpec::standard());
    for (int steps = 0; !interp.done() && steps < 100000; ++steps) EXPECT_TRUE(interp.step().warnings.empty());
    std::map<std::string, std::vector<int32_t>> out;
    for (const ArrayPlacement& p : linked.map.arrays) out[p.name] = readArray(interp.state(), p);
    return out;
}

std::string errorOf(const std::string& source, const std::string& launchJson) {
    try {
        runToEnd(source, launchJson);
    } catch (const DiagnosticError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(GlobalVariables, ConstantAndDeviceTablesAreReadWrittenAndShownAfterTheArrays) {
    auto r = runToEnd(
        "__constant__ float coef[3] = {1.5f, 2.0f, -3.0f};\n__device__ int table[4] = {1, 2, 3, 4};\n"
        "__device__ unsigned counter;\n__device__ short halves[3] = {-1, 2, 3};\n"
        "__global__ void k(float* out, int* small) {\n  int i = threadIdx.x;\n"
        "  const char digits[] = \"0123456789\";\n  out[i] = coef[i % 3] * table[i & 3];\n"
        "  small[i] = halves[i % 3] + digits[i * 2];\n  atomicAdd(&counter, i);\n  table[i] = -i;\n}\n",
        R"({"block": 4, "args": [{"name": "out", "type": "float", "zeros": 4}, {"name": "small", "zeros": 4}]})");
    auto floats = [](std::vector<float> v) {
        std::vector<int32_t> bits;
        for (float f : v) bits.push_back(std::bit_cast<int32_t>(f));
        return bits;
    };
    EXPECT_EQ(r["out"], floats({1.5f, 4.0f, -9.0f, 6.0f}));
    EXPECT_EQ(r["small"], (std::vector<int32_t>{'0' - 1, '2' + 2, '4' + 3, '6' - 1}));
    EXPECT_EQ(r["counter"], std::vector<int32_t>{6});
    EXPECT_EQ(r["table"], (std::vector<int32_t>{0, -1, -2, -3}));
    EXPECT_EQ(r["halves"], (std::vector<int32_t>{-1, 2, 3}));  // a table of shorts shows as shorts
    EXPECT_EQ(r["digits"].size(), 11u);                        // and one of chars as bytes
}

TEST(GlobalVariables, WhatTheMachineCannotHoldIsRefusedWhereItIsUsed) {
    std::string launch = R"({"block": 4, "args": [{"name": "out", "zeros": 4}]})";
    std::string address = errorOf(
        "__device__ int table[2] = {1, 2};\n__device__ int* second = &table[1];\n"
        "__global__ void k(int* out) {\n  out[threadIdx.x] = *second;\n}\n",
        launch);
    EXPECT_NE(address.find("k.cu:4:"), std::string::npos) << address;
    EXPECT_NE(address.find("'second' cannot be placed in the machine's global memory: its initializer holds an "
                           "address"),
              std::string::npos)
        << address;
    std::string wide =
        errorOf("__device__ long long big = 5;\n__global__ void k(int* out) { out[0] = (int)big; }\n", launch);
    EXPECT_NE(wide.find("'big' cannot be placed in the machine's global memory: it is 64 bits wide"), std::string::npos)
        << wide;
    std::string clash = errorOf("__device__ int o[4];\n__global__ void k(int* out) { out[0] = o[1]; }\n",
                                R"({"block": 4, "args": [{"name": "o", "zeros": 4}]})");
    EXPECT_NE(clash.find("the kernel's global variable 'o' has the name of the launch's argument \"o\""),
              std::string::npos)
        << clash;
}

TEST(DynamicSharedMemory, TheLaunchSizesTheExternArrayAfterTheStaticOnes) {
    std::string source =
        "__global__ void k(const int* in, int* out) {\n  __shared__ int fixed[2];\n"
        "  extern __shared__ short dyn[];\n  int t = threadIdx.x;\n  if (t < 2) fixed[t] = 100 * t;\n"
        "  dyn[t] = (short)(in[t] * 3);\n  __syncthreads();\n  out[t] = dyn[blockDim.x - 1 - t] + fixed[t & 1];\n}\n";
    std::string launch = R"({"block": 6, "shared_bytes": 12, "args": [{"name": "in", "array": [1, 2, 3, 4, 5, -6]},
        {"name": "out", "zeros": 6}]})";
    EXPECT_EQ(runToEnd(source, launch)["out"], (std::vector<int32_t>{-18, 115, 12, 109, 6, 103}));
    std::string missing =
        errorOf(source, R"({"block": 6, "args": [{"name": "in", "zeros": 6}, {"name": "out", "zeros": 6}]})");
    EXPECT_NE(missing.find("k.json: error: the kernel declares extern __shared__ 'dyn', sized by the launch: give "
                           "\"shared_bytes\": N"),
              std::string::npos)
        << missing;
    std::string tooBig = errorOf(
        source,
        R"({"block": 6, "shared_bytes": 250, "args": [{"name": "in", "zeros": 6}, {"name": "out", "zeros": 6}]})");
    EXPECT_NE(tooBig.find("the program uses 2 shared words per block and the launch's shared_bytes 63 more but the "
                          "machine has 64"),
              std::string::npos)
        << tooBig;
}
