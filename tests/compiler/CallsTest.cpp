// Device functions that stay calls in the PTX (__noinline__, and at -O0 every function that is not
// __forceinline__) run inlined at each call site: parameters, results of every kind, nested calls, functions
// called from divergent code, recursion on the call stack, and the located refusal of function pointers.
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

int64_t mixOf(int n) {
    uint32_t r = 1;
    for (int k = 1; k <= n; ++k) r = r * 3 + uint32_t(k % 7);
    return int32_t(r);
}

// Recursion with a different depth in each lane (so the lanes diverge inside the recursion): a two-way
// recursion, a recursion that is not a tail call, two functions that call each other, and a tree sum through
// a pointer (an address kept across the calls), a call in a loop that is also entered another way; at -O0 every
// variable lives in the function's local depot, which each call keeps too (the tree sum does not fit the ROM there).
TEST(Calls, RecursiveFunctionsRunOnTheCallStackAtEveryLevel) {
    const char* launch =
        R"({"block": 4, "args": [{"name": "in", "array": [0, 3, 5, 9]}, {"name": "out", "zeros": 4}]})";
    struct Case {
        const char* functions;
        const char* call;
        std::vector<int64_t> expected;
        std::vector<int> levels;
    };
    std::vector<Case> cases = {
        {"__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n",
         "fib(n)",
         {0, 2, 5, 34},
         {0, 1, 3}},
        {"__device__ int mix(int n) {\n  if (n == 0) return 1;\n  int r = mix(n - 1);\n  return r * 3 + n % 7;\n}\n",
         "mix(n)",
         {mixOf(0), mixOf(3), mixOf(5), mixOf(9)},
         {0, 1, 3}},
        {"__device__ bool odd(int n);\n__device__ bool even(int n) { return n == 0 ? true : odd(n - 1); }\n"
         "__device__ bool odd(int n) { return n == 0 ? false : even(n - 1); }\n",
         "odd(n) + 2 * even(n + 2)",
         {2, 1, 1, 1},
         {0, 1, 3}},
        {"__device__ int subtree(const int* t, int n, int i) {\n  if (i >= n) return 0;\n"
         "  return t[i] + subtree(t, n, 2 * i + 1) + subtree(t, n, 2 * i + 2);\n}\n",
         "subtree(in, 4, n % 4)",
         {17, 9, 12, 12},
         {1, 3}},
        {"__device__ int walk(const int* t, int n, int i) {\n  int acc = 0;\n"
         "  for (int c = 2 * i + 1; c <= 2 * i + 2 && c < n; ++c)\n"
         "    if (t[c] > 4) acc += walk(t, n, c) + t[c];\n    else acc -= 1;\n  return acc;\n}\n",
         "walk(in, 4, n % 4)",
         {4, 0, 9, 9},
         {1, 3}},
    };
    for (const Case& c : cases)
        for (int opt : c.levels) {
            SCOPED_TRACE(std::string(c.call) + " at -O" + std::to_string(opt));
            std::string kernel = std::string(c.functions) +
                                 "__global__ void k(const int* in, int* out) {\n  int n = in[threadIdx.x];\n"
                                 "  out[threadIdx.x] = " +
                                 c.call + ";\n}\n";
            EXPECT_EQ(runToEnd(kernel, launch, opt)["out"], c.expected);
        }
}

TEST(Calls, ARecursiveFunctionTheKernelNeverCallsCostsNothing) {
    const char* kernel = "__global__ void k(const int* in, int* out) { out[threadIdx.x] = in[threadIdx.x] * 2; }\n";
    const char* launch = R"({"block": 2, "args": [{"name": "in", "array": [3, -4]}, {"name": "out", "zeros": 2}]})";
    Program alone = compileKernel(kernel, "k.cu", MachineSpec::standard()).kernel.program;
    Program beside =
        compileKernel(
            std::string("__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n") + kernel, "k.cu",
            MachineSpec::standard())
            .kernel.program;
    EXPECT_EQ(beside.blocks.size(), alone.blocks.size());
    EXPECT_EQ(beside.localWords, 0);
    EXPECT_EQ(
        runToEnd(std::string("__device__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\n") + kernel,
                 launch)["out"],
        (std::vector<int64_t>{6, -8}));
}

TEST(Calls, ACallDeeperThanTheStackWarnsAtItsLineAndStopsItsThread) {
    const char* source =
        "__device__ int mix(int n) {\n  if (n == 0) return 1;\n  int r = mix(n - 1);\n  return r * 3 + n % 7;\n}\n"
        "__global__ void k(const int* in, int* out) { out[threadIdx.x] = mix(in[threadIdx.x]); }\n";
    Program program = compileKernel(source, "k.cu", MachineSpec::standard()).kernel.program;
    LaunchSpec launch = parseLaunchSpec(
        R"({"block": 4, "args": [{"name": "in", "array": [2, 15, 16, 40]}, {"name": "out", "array": [7, 7, 7, 7]}]})",
        "k.json");
    LinkedLaunch linked = linkLaunch(program, launch);
    Interpreter interp(linked.program, launch, MachineSpec::standard());
    std::vector<StepEvent> history;
    while (!interp.done()) history.push_back(interp.step());
    std::vector<std::string> warnings = locatedWarnings(linked.program, history);
    ASSERT_EQ(warnings.size(), 1u);
    EXPECT_EQ(warnings[0],
              "k.cu:3: warning: the call stack is full: a recursive call deeper than the program's call depth "
              "(--call-depth); the thread stops here, so its results are incomplete (2 times)");
    // 16 calls in progress fit (the kernel's and 15 recursive ones); the lanes that would need more keep
    // their old values.
    EXPECT_EQ(readArray(interp.state(), linked.map.arrays[1]), (std::vector<int64_t>{mixOf(2), mixOf(15), 7, 7}));
}

TEST(Calls, FunctionPointersAreRefusedAtTheCall) {
    Diagnostic d = errorOf(
        "__device__ __noinline__ int inc(int x) { return x + 1; }\n"
        "__device__ __noinline__ int dec(int x) { return x - 1; }\n"
        "__global__ void k(int* a) {\n  int (*f)(int) = a[2] ? inc : dec;\n  a[0] = f(a[1]);\n}\n");
    EXPECT_EQ(d.line, 5) << d.format();
    EXPECT_NE(d.message.find("function pointer"), std::string::npos) << d.format();
}
