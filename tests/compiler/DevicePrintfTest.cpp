// Device printf and assert end to end on the reference interpreter: Clang's format check, the records the
// kernel writes into its buffer, and the text the host makes of them.
#include <gtest/gtest.h>

#include <cstdio>

#include "KernelRun.h"
#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/DevicePrintf.h"

using namespace qgpu;

namespace {

DevicePrintfOutput printedBy(const std::string& source, const std::string& launchJson, int optLevel = 2,
                             std::vector<std::string> defines = {}) {
    CudaCompileOptions options;
    options.optLevel = optLevel;
    options.defines = std::move(defines);
    tests::FinishedRun run = tests::runKernel(source, launchJson, options);
    return readDevicePrintf(run.state.global, run.map);
}

std::string compileError(const std::string& source, int optLevel = 2) {
    CudaCompileOptions options;
    options.optLevel = optLevel;
    try {
        compileKernel(source, "k.cu", MachineSpec::standard(), options);
    } catch (const DiagnosticError& e) {
        return e.what();
    }
    return "";
}

constexpr const char* kOneThread = R"({"block": 1, "args": [{"name": "out", "zeros": 1}]})";

}  // namespace

TEST(DevicePrintf, EachConversionPrintsAsTheHostsPrintfPrintsIt) {
    const char* source =
        "#include <cstdio>\n__global__ void k(int* out) {\n"
        "  float x = 1.25f + out[0];\n"
        "  printf(\"%5.2f|%-6d|%#x|%08.3e|%*d|%.*s|%%|%lld|%llu|%hhd|%c|%G|%a|%i\\n\", x, -7, 255u, x, 4, 42, 3,"
        " \"abcdef\", -5ll, ~0ull, 300, 'q', 1e30f, 0.5f, -2147483647 - 1);\n}\n";
    char expected[256];
    std::snprintf(expected, sizeof expected, "%5.2f|%-6d|%#x|%08.3e|%*d|%.*s|%%|%lld|%llu|%hhd|%c|%G|%a|%i\n", 1.25, -7,
                  255u, 1.25, 4, 42, 3, "abcdef", -5ll, ~0ull, (signed char)300, 'q', double(1e30f), 0.5,
                  -2147483647 - 1);
    for (int optLevel : {1, 3}) {  // -O0's copies of the 16 arguments take more than the ROM
        DevicePrintfOutput out = printedBy(source, kOneThread, optLevel);
        ASSERT_EQ(out.records.size(), 1u) << "-O" << optLevel;
        EXPECT_EQ(out.records[0].text, expected) << "-O" << optLevel;
        EXPECT_EQ(out.droppedWords, 0);
    }
}

TEST(DevicePrintf, CallsPrintInTheOrderTheyRanWithTheirThreadsValues) {
    DevicePrintfOutput out = printedBy(
        "__global__ void k(int* out) {\n  printf(\"t%d\\n\", threadIdx.x);\n"
        "  if (threadIdx.x & 1) printf(\"odd %u of %d\\n\", threadIdx.x, blockIdx.x);\n}\n",
        R"({"grid": 2, "block": 3, "args": [{"name": "out", "zeros": 1}]})");
    EXPECT_EQ(out.text(), "t0\nt1\nt2\nodd 1 of 0\nt0\nt1\nt2\nodd 1 of 1\n");
}

TEST(DevicePrintf, ManyArgumentsAndDoublesKeepTheirKinds) {
    DevicePrintfOutput out = printedBy(
        "__global__ void k(int* out) {\n"
        "  printf(\"%d %d %d %d %d %d %d %d %d %f %d %lld %g\\n\", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10.5f, 11, 12ll, 0.1);\n"
        "  printf(\"none\\n\");\n}\n",
        kOneThread);
    EXPECT_EQ(out.text(), "1 2 3 4 5 6 7 8 9 10.500000 11 12 0.1\nnone\n");
}

TEST(DevicePrintf, CallsPastTheBufferAreDroppedAndCounted) {
    // 16 threads each ask for 3 words (format, kinds, one argument); 20 words hold 6 records.
    DevicePrintfOutput out =
        printedBy("__global__ void k(int* out) { printf(\"%d\\n\", threadIdx.x); }\n",
                  R"({"block": 16, "args": [{"name": "out", "zeros": 1}]})", 2, {"QGPU_PRINTF_WORDS=20"});
    EXPECT_EQ(out.bufferWords, 20);
    EXPECT_EQ(out.text(), "0\n1\n2\n3\n4\n5\n");
    EXPECT_EQ(out.droppedWords, 30);
}

TEST(DevicePrintf, AFormatThatDoesNotFitItsArgumentsIsAnErrorAtItsLine) {
    std::string e = compileError("__global__ void k(int* out) {\n  int i = threadIdx.x;\n  printf(\"%f\\n\", i);\n}\n");
    EXPECT_NE(e.find("k.cu:3:"), std::string::npos) << e;
    EXPECT_NE(e.find("format specifies type 'double' but the argument has type 'int'"), std::string::npos) << e;
    e = compileError("__global__ void k(int* out) { printf(\"%d %d\\n\", 1); }\n");
    EXPECT_NE(e.find("k.cu:1:"), std::string::npos) << e;
    EXPECT_NE(e.find("more '%' conversions than data arguments"), std::string::npos) << e;
}

TEST(DevicePrintf, ProgramsWithoutPrintfHaveNoBuffer) {
    tests::FinishedRun run = tests::runKernel("__global__ void k(int* out) { out[0] = 1; }\n", kOneThread, {});
    EXPECT_EQ(run.map.find(kPrintfBufferName), nullptr);
    EXPECT_EQ(readDevicePrintf(run.state.global, run.map).bufferWords, 0);
}

TEST(DeviceAssert, AFailedAssertionLeavesCudasMessageAndItsThreadExits) {
    const char* source =
        "#include <cassert>\n__global__ void check(const int* a, int* out) {\n"
        "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  assert(a[i] > 0);\n  out[i] = 2 * a[i];\n}\n";
    const char* launch = R"({"grid": 2, "block": 2, "args": [{"name": "a", "array": [1, 2, -3, 4]},
                                                    {"name": "out", "zeros": 4}]})";
    CudaCompileOptions options;
    tests::FinishedRun run = tests::runKernel(source, launch, options);
    DevicePrintfOutput out = readDevicePrintf(run.state.global, run.map);
    ASSERT_NE(out.failedAssertion(), nullptr);
    EXPECT_EQ(out.failedAssertion()->text,
              "k.cu:4: void check(const int *, int *): block: [1,0,0], thread: [0,0,0] Assertion `a[i] > 0` failed.\n");
    EXPECT_EQ(readArray(run.state, *run.map.find("out")), (std::vector<int64_t>{2, 4, 0, 8}));
    // NDEBUG turns it off, from the command line or defined before <cassert>.
    options.defines = {"NDEBUG"};
    run = tests::runKernel(source, launch, options);
    EXPECT_EQ(readDevicePrintf(run.state.global, run.map).bufferWords, 0);
    EXPECT_EQ(readArray(run.state, *run.map.find("out")), (std::vector<int64_t>{2, 4, -6, 8}));
    run = tests::runKernel(std::string("#define NDEBUG\n") + source, launch, {});
    EXPECT_EQ(readArray(run.state, *run.map.find("out")), (std::vector<int64_t>{2, 4, -6, 8}));
}

TEST(DevicePrintf, TheCheckComparesTheTextsWithExpectInAnyOrder) {
    tests::FinishedRun run = tests::runKernel("__global__ void k(int* out) { printf(\"t%d\\n\", threadIdx.x); }\n",
                                              R"({"block": 2, "args": [{"name": "out", "zeros": 1}]})", {});
    auto mismatches = [&](std::vector<std::string> texts) {
        LaunchSpec launch;
        launch.expectPrintf = std::move(texts);
        return expectationMismatches(run.state, launch, run.map);
    };
    EXPECT_TRUE(mismatches({"t1\n", "t0\n"}).empty());
    std::vector<std::string> extra = mismatches({"t0\n"});
    ASSERT_EQ(extra.size(), 1u);
    EXPECT_EQ(extra[0], "printf printed \"t1\\n\", which \"printf\" does not expect (2 calls printed, 1 expected)");
    std::vector<std::string> missing = mismatches({"t0\n", "t1\n", "t1\n"});
    ASSERT_EQ(missing.size(), 1u);
    EXPECT_EQ(missing[0], "printf did not print \"t1\\n\" (2 calls printed, 3 expected)");
}
