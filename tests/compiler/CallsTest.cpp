// Device functions that stay calls in the PTX (__noinline__, and at -O0 every function that is not
// __forceinline__) run inlined at each call site: parameters, results of every kind, nested calls, functions
// called from divergent code, and the located refusals (recursion, function pointers).
#include <gtest/gtest.h>

#include "KernelRun.h"
#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Diagnostic.h"

using namespace qgpu;

namespace {

using qgpu::tests::runToEnd;

Diagnostic errorOf(const std::string& source, int optLevel = 2) {
    try {
        CudaCompileOptions options;
        options.optLevel = optLevel;
        compileKernel(source, "k.cu", MachineSpec::standard(), options);
    } catch (const DiagnosticError& e) {
        return e.diagnostics().front();
    }
    ADD_FAILURE() << "expected an error for:\n" << source;
    return {};
}

const char* kHelpers =
    "__device__ __noinline__ int square_plus(int x, int y) { return x * x + y; }\n"
    "__device__ __noinline__ float half_of(float x) { return x * 0.5f; }\n"
    "__device__ __noinline__ long long widen(long long a, int b) { return a * b + 5000000000LL; }\n"
    "__device__ __noinline__ void put(int* p, int v) { *p = v; }\n"
    "__device__ __noinline__ int clamp_to(int x, int hi) {\n"
    "  if (x > hi) return hi;\n  return x < 0 ? 0 : x;\n}\n"
    "__device__ __noinline__ int twice_clamped(int x) { return clamp_to(2 * x, 9) + clamp_to(x, 3); }\n";

const char* kKernel =
    "__global__ void k(int* a, float* f, long long* w) {\n"
    "  int t = threadIdx.x;\n"
    "  a[t] = square_plus(a[t], t);\n"
    "  f[t] = half_of(f[t]);\n"
    "  w[t] = widen(w[t], t + 1);\n"
    "  if (t & 1) put(a + 4 + t, twice_clamped(t + 2));\n"
    "  else put(a + 4 + t, square_plus(t, 1));\n"
    "}\n";

const char* kLaunch = R"({"block": 4, "args": [{"name": "a", "array": [3, -2, 5, 7, 0, 0, 0, 0]},
    {"name": "f", "type": "float", "array": [1, 3, -5, 0.25]},
    {"name": "w", "type": "i64", "array": [4000000000, -1, 3, 9000000000]}]})";

void expectHelpersResults(const std::map<std::string, std::vector<int64_t>>& r) {
    EXPECT_EQ(r.at("a"), (std::vector<int64_t>{9, 5, 27, 52, 1, 6 + 3, 5, 9 + 3}));
    std::vector<int64_t> halves;
    for (float x : {0.5f, 1.5f, -2.5f, 0.125f}) halves.push_back(std::bit_cast<int32_t>(x));
    EXPECT_EQ(r.at("f"), halves);
    EXPECT_EQ(r.at("w"), (std::vector<int64_t>{9000000000, 4999999998, 5000000009, 41000000000}));
}

}  // namespace

TEST(Calls, NoinlineFunctionsRunAtEachCallSite) {
    expectHelpersResults(runToEnd(std::string(kHelpers) + kKernel, kLaunch));
}

TEST(Calls, AtO0EveryFunctionIsACallAndGivesTheSameAnswers) {
    auto r = runToEnd(
        "__device__ int square_plus(int x, int y) { return x * x + y; }\n"
        "__device__ long long widen(long long a, int b) { return a * b + 5000000000LL; }\n"
        "__global__ void k(int* a, long long* w) {\n  int t = threadIdx.x;\n"
        "  a[t] = square_plus(a[t], t);\n  w[t] = widen(w[t], t + 1);\n}\n",
        R"({"block": 4, "args": [{"name": "a", "array": [3, -2, 5, 7]},
            {"name": "w", "type": "i64", "array": [4000000000, -1, 3, 9000000000]}]})",
        0);
    EXPECT_EQ(r["a"], (std::vector<int64_t>{9, 5, 27, 52}));
    EXPECT_EQ(r["w"], (std::vector<int64_t>{9000000000, 4999999998, 5000000009, 41000000000}));
}

TEST(Calls, StructsAndVectorsPassAndReturnByValue) {
    auto r = runToEnd(
        "struct Reading { int count; float level; };\n"
        "__device__ __noinline__ Reading scaled(Reading r, int k) {\n"
        "  Reading out;\n  out.count = r.count * k;\n  out.level = r.level + k;\n  return out;\n}\n"
        "__device__ __noinline__ int2 swapped(int2 v) { return make_int2(v.y, v.x); }\n"
        "__global__ void k(int* counts, float* levels, int2* pairs) {\n  int t = threadIdx.x;\n"
        "  Reading r = scaled(Reading{counts[t], levels[t]}, t + 2);\n"
        "  counts[t] = r.count;\n  levels[t] = r.level;\n  pairs[t] = swapped(pairs[t]);\n}\n",
        R"({"block": 2, "args": [{"name": "counts", "array": [5, -3]},
            {"name": "levels", "type": "float", "array": [0.5, 1.25]},
            {"name": "pairs", "array": [1, 2, 3, 4]}]})");
    EXPECT_EQ(r["counts"], (std::vector<int64_t>{10, -9}));
    EXPECT_EQ(r["levels"], (std::vector<int64_t>{std::bit_cast<int32_t>(2.5f), std::bit_cast<int32_t>(4.25f)}));
    EXPECT_EQ(r["pairs"], (std::vector<int64_t>{2, 1, 4, 3}));
}

TEST(Calls, ParametersKeepTheExtensionAndWidthTheirLoadsGiveThem) {
    auto r = runToEnd(
        "struct Tagged { int id; unsigned char tag; };\n"
        "__device__ __noinline__ unsigned long long widen(unsigned x) { return x; }\n"
        "__device__ __noinline__ long long widen_signed(int x) { return x; }\n"
        "__device__ __noinline__ int tag_of(Tagged t) { return t.tag + t.id; }\n"
        "__global__ void k(const unsigned* in, unsigned long long* wide, long long* signedWide, int* tags) {\n"
        "  int t = threadIdx.x;\n  wide[t] = widen(in[t]);\n  signedWide[t] = widen_signed((int)in[t]);\n"
        "  tags[t] = tag_of(Tagged{t, (unsigned char)(in[t] + 0x1ff)});\n}\n",
        R"({"block": 2, "args": [{"name": "in", "type": "u32", "array": [2147483648, 7]},
            {"name": "wide", "type": "u64", "zeros": 2}, {"name": "signedWide", "type": "i64", "zeros": 2},
            {"name": "tags", "zeros": 2}]})");
    EXPECT_EQ(r["wide"], (std::vector<int64_t>{2147483648, 7}));
    EXPECT_EQ(r["signedWide"], (std::vector<int64_t>{-2147483648, 7}));
    EXPECT_EQ(r["tags"], (std::vector<int64_t>{0xff, 1 + 6}));
}

TEST(Calls, RecursionIsRefusedAtTheCall) {
    Diagnostic d = errorOf(
        "__device__ __noinline__ int fib(int n) {\n  return n < 2 ? n : fib(n - 1) + fib(n - 2);\n}\n"
        "__global__ void k(int* a) { a[0] = fib(a[1]); }\n");
    EXPECT_EQ(d.file, "k.cu");
    EXPECT_EQ(d.line, 2) << d.format();
    EXPECT_NE(d.message.find("'fib(int)' calls itself (recursion)"), std::string::npos) << d.format();
    Diagnostic atO0 = errorOf(
        "__device__ int fact(int n) {\n  return n <= 1 ? 1 : n * fact(n - 1);\n}\n"
        "__global__ void k(int* a) { a[0] = fact(a[1]); }\n",
        0);
    EXPECT_EQ(atO0.line, 2) << atO0.format();
    EXPECT_NE(atO0.message.find("'fact(int)' calls itself"), std::string::npos) << atO0.format();
}

TEST(Calls, FunctionPointersAreRefusedAtTheCall) {
    Diagnostic d = errorOf(
        "__device__ __noinline__ int inc(int x) { return x + 1; }\n"
        "__device__ __noinline__ int dec(int x) { return x - 1; }\n"
        "__global__ void k(int* a) {\n  int (*f)(int) = a[2] ? inc : dec;\n  a[0] = f(a[1]);\n}\n");
    EXPECT_EQ(d.line, 5) << d.format();
    EXPECT_NE(d.message.find("function pointer"), std::string::npos) << d.format();
}
