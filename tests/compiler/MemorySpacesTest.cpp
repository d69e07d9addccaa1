// The memory spaces beyond the launch's arrays, on the reference interpreter: variables in global memory
// (__device__ and __constant__ ones, and local tables with an initializer that Clang keeps there), dynamic
// shared memory (extern __shared__), and local memory (a frame per thread: local arrays, and -O0).
#include <gtest/gtest.h>

#include "KernelRun.h"
#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/Trace.h"

using namespace qgpu;

namespace {

using qgpu::tests::runToEnd;

std::string errorOf(const std::string& source, const std::string& launchJson, int optLevel = 2) {
    try {
        runToEnd(source, launchJson, optLevel);
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
        std::vector<int64_t> bits;
        for (float f : v) bits.push_back(std::bit_cast<int32_t>(f));
        return bits;
    };
    EXPECT_EQ(r["out"], floats({1.5f, 4.0f, -9.0f, 6.0f}));
    EXPECT_EQ(r["small"], (std::vector<int64_t>{'0' - 1, '2' + 2, '4' + 3, '6' - 1}));
    EXPECT_EQ(r["counter"], std::vector<int64_t>{6});
    EXPECT_EQ(r["table"], (std::vector<int64_t>{0, -1, -2, -3}));
    EXPECT_EQ(r["halves"], (std::vector<int64_t>{-1, 2, 3}));  // a table of shorts shows as shorts
    EXPECT_EQ(r["digits"].size(), 11u);                        // and one of chars as bytes
}

TEST(GlobalVariables, SixtyFourBitVariablesAndTablesHoldTheirValues) {
    auto r = runToEnd(
        "__device__ long long total = 5000000000LL;\n"
        "__constant__ unsigned long long primes[3] = {4294967311ull, 1000000007ull, 18446744073709551557ull};\n"
        "__global__ void k(unsigned long long* out) {\n  int i = threadIdx.x;\n"
        "  if (i < 3) out[i] = primes[i] % 1000 + (unsigned long long)total;\n"
        "  if (i == 0) total = total * 3;\n}\n",
        R"({"block": 4, "args": [{"name": "out", "type": "u64", "zeros": 3}]})");
    EXPECT_EQ(r["out"], (std::vector<int64_t>{5000000311, 5000000007, 5000000557}));
    EXPECT_EQ(r["total"], std::vector<int64_t>{15000000000});
    EXPECT_EQ(r["primes"], (std::vector<int64_t>{4294967311, 1000000007, int64_t(18446744073709551557ull)}));
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
        errorOf("__device__ double big = 5;\n__global__ void k(float* out) {\n  out[0] = (float)big;\n}\n",
                R"({"block": 4, "args": [{"name": "out", "type": "float", "zeros": 4}]})");
    EXPECT_NE(wide.find("k.cu:3:"), std::string::npos) << wide;
    EXPECT_NE(wide.find("double"), std::string::npos) << wide;
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
    EXPECT_EQ(runToEnd(source, launch)["out"], (std::vector<int64_t>{-18, 115, 12, 109, 6, 103}));
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

TEST(LocalMemory, EachThreadHasItsOwnFrameAtEveryOptimizationLevel) {
    // A local array indexed at run time, in two blocks of a 2-D grid with a partial warp: every thread's
    // frame is its own.
    std::string source =
        "__global__ void k(const int* in, int* out) {\n"
        "  int i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;\n  int t[5];\n"
        "  for (int j = 0; j < 5; ++j) t[j] = in[i] * (j + 1);\n  out[i] = t[in[i] % 5] + t[(i + 1) % 5];\n}\n";
    std::string launch =
        R"({"grid": [1, 2], "block": 6, "args": [{"name": "in", "array": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]},
        {"name": "out", "zeros": 12}]})";
    std::vector<int64_t> expected;
    for (int i = 0; i < 12; ++i) {
        int v = i + 1;
        expected.push_back(v * (v % 5 + 1) + v * ((i + 1) % 5 + 1));
    }
    for (int opt : {0, 1, 2, 3}) EXPECT_EQ(runToEnd(source, launch, opt)["out"], expected) << "-O" << opt;
}

TEST(LocalMemory, ItsSizeIsCheckedAgainstGlobalMemoryAndMinusO0SaysWhatItCannotDo) {
    std::string big = errorOf(
        "__global__ void k(int* out) {\n  int t[40];\n  for (int j = 0; j < 40; ++j) t[j] = out[j];\n"
        "  out[threadIdx.x] = t[out[0] % 40];\n}\n",
        R"({"grid": 4, "block": 32, "args": [{"name": "out", "zeros": 64}]})");
    EXPECT_NE(big.find("the kernel's local memory (40 words a thread, for local arrays and -O0's variables) needs "
                       "5120 words for 128 threads"),
              std::string::npos)
        << big;
    // At -O0 a pointer to shared memory passes through local memory, and Clang's own helpers are calls.
    std::string shared = errorOf(
        "__global__ void k(int* out) {\n  __shared__ int s[4];\n  s[threadIdx.x] = 1;\n  __syncthreads();\n"
        "  out[threadIdx.x] = s[3 - threadIdx.x];\n}\n",
        R"({"block": 4, "args": [{"name": "out", "zeros": 4}]})", 0);
    EXPECT_NE(shared.find("at -O0 every pointer passes through local memory"), std::string::npos) << shared;
    // Clang's own helpers that -O0 leaves as calls (dim3's constructor) are inlined by the lowering.
    auto call = runToEnd("__global__ void k(int* out) {\n  dim3 b = blockDim;\n  out[threadIdx.x] = b.x;\n}\n",
                         R"({"block": 4, "args": [{"name": "out", "zeros": 4}]})", 0);
    EXPECT_EQ(call["out"], (std::vector<int64_t>{4, 4, 4, 4}));
}

TEST(Spilling, ValuesBeyondTheRegistersLiveInLocalMemoryAndKeepTheirValues) {
    // Twenty values live across a barrier: more than the 15 registers.
    std::string src = "__global__ void k(int* a) {\n";
    for (int i = 0; i < 20; ++i)
        src += "  int v" + std::to_string(i) + " = a[threadIdx.x + " + std::to_string(i) + "];\n";
    src += "  __syncthreads();\n  int s = 0;\n";
    for (int i = 0; i < 20; ++i) src += "  s = s * 3 + (v" + std::to_string(i) + " ^ " + std::to_string(i) + ");\n";
    src += "  __syncthreads();\n  a[threadIdx.x] = s;\n}\n";
    std::vector<int64_t> a;
    for (int i = 0; i < 24; ++i) a.push_back(i * 7 - 40);
    std::string values;
    for (int32_t v : a) values += (values.empty() ? "" : ", ") + std::to_string(v);
    auto out = runToEnd(src, R"({"grid": 1, "block": 4, "args": [{"name": "a", "array": [)" + values + "]}]}");
    for (int t = 0; t < 4; ++t) {
        uint32_t s = 0;
        for (int i = 0; i < 20; ++i) s = s * 3 + uint32_t(a[size_t(t + i)] ^ i);
        EXPECT_EQ(out["a"][size_t(t)], int32_t(s)) << t;
    }
    EXPECT_GT(compileKernel(src, "k.cu").kernel.spilledValues, 0);
    // Five values live across fused multiply-adds, whose routine holds 11 registers.
    CompiledKernel f = compileKernel(
        "__global__ void k(const float* a, float* out) {\n  int t = threadIdx.x;\n  float x = a[t], y = a[t + 4], "
        "z = a[t + 8];\n  float p = x * y;\n  out[t] = p + z;\n  out[t + 4] = z - x * y;\n}\n",
        "k.cu");
    EXPECT_GT(f.kernel.spilledValues, 0);
    EXPECT_GT(f.kernel.program.localWords, 0);
}

TEST(NullPointers, NoArrayOrVariableIsAtAddressZeroSoAPointerToOneIsNeverNull) {
    // The optional-bias idiom, with the array as the first argument (word 0 is null).
    const char* bias =
        "__global__ void k(const int* bias, int* out) {\n"
        "  int i = threadIdx.x;\n"
        "  out[i] = (bias != nullptr ? bias[i] : 100) + (out == NULL ? 1000 : 0);\n}\n";
    auto r = runToEnd(bias, R"({"block": 4, "args": [{"name": "bias", "array": [1, 2, 3, 4]},
                                {"name": "out", "zeros": 4}]})");
    EXPECT_EQ(r["out"], (std::vector<int64_t>{1, 2, 3, 4}));
}

TEST(GlobalVariables, TheLaunchSetsVariablesAsCudaMemcpyToSymbolDoesAndExpectChecksThem) {
    const char* source =
        "__constant__ float scale[2];\n__device__ int offset = 3;\n"
        "__global__ void k(float* out) {\n  int i = threadIdx.x;\n"
        "  out[i] = scale[i & 1] * i + offset;\n  if (i == 0) offset = -1;\n}\n";
    auto r = runToEnd(source, R"({"block": 4, "args": [{"name": "out", "type": "float", "zeros": 4}],
        "symbols": [{"name": "scale", "type": "float", "array": [0.5, 2]}, {"name": "offset", "scalar": 10}]})");
    std::vector<int64_t> out;
    for (float f : {10.0f, 12.0f, 11.0f, 16.0f}) out.push_back(std::bit_cast<int32_t>(f));
    EXPECT_EQ(r["out"], out);
    EXPECT_EQ(r["offset"], std::vector<int64_t>{-1});
    LaunchSpec spec = parseLaunchSpec(R"({"block": 1, "symbols": [{"name": "offset", "scalar": 10}],
                                          "expect": {"offset": [-1]}})");
    EXPECT_EQ(parseLaunchSpec(launchSpecToJson(spec)).symbols.size(), 1u);  // written back as read
    EXPECT_EQ(parseLaunchSpec(launchSpecToJson(spec, JsonLayout::Readable)).expect.size(), 1u);
    EXPECT_NE(errorOf(source, R"({"block": 1, "args": [{"name": "out", "type": "float", "zeros": 1}],
                                  "symbols": [{"name": "scale", "type": "float", "array": [1]}]})")
                  .find("symbol \"scale\" holds 4 bytes but the kernel's variable 'scale' has 8; give every element"),
              std::string::npos);
    EXPECT_NE(errorOf(source, R"({"block": 1, "args": [{"name": "out", "type": "float", "zeros": 1}],
                                  "symbols": [{"name": "scales", "scalar": 1}]})")
                  .find("sets the symbol \"scales\" but the kernel has no __device__ or __constant__ variable"),
              std::string::npos);
}
