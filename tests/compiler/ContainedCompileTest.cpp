// Kernels that crash, abort, overflow the stack of, or run away in Clang and LLVM: each compile ends in one
// located error (or compiles), and the test process -- the caller -- lives on.
#include <gtest/gtest.h>

#include <thread>

#include "ContainedCompile.h"
#include "qgpu/compiler/CudaCompiler.h"
#include "qgpu/compiler/Frontend.h"

using namespace qgpu;

namespace {

const char* kBody = "__global__ void k(int* o) {\n";

CudaCompileOptions limited(int seconds, int memoryMiB = 2048) {
    CudaCompileOptions options;
    options.limits.cpuSeconds = seconds;
    options.limits.memoryMiB = memoryMiB;
    return options;
}

// The one error of a compile that must fail.
Diagnostic onlyError(const std::string& source, const CudaCompileOptions& options = {}) {
    CudaCompileResult r = compileCudaToPtx(source, "hostile.cu", options);
    EXPECT_FALSE(r.ok);
    std::vector<Diagnostic> errors;
    for (const Diagnostic& d : r.diagnostics)
        if (!d.warning) errors.push_back(d);
    EXPECT_EQ(errors.size(), 1u) << formatAll(r.diagnostics);
    return errors.empty() ? Diagnostic{} : errors.front();
}

bool mentions(const Diagnostic& d, const std::string& text) { return d.message.find(text) != std::string::npos; }

std::string repeated(const std::string& piece, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += piece;
    return out;
}

}  // namespace

TEST(ContainedCompile, ClangsDebugPragmasDoNothing) {
    for (std::string pragma :
         {"#pragma clang __debug crash", "#pragma clang __debug parser_crash", "#pragma clang __debug llvm_fatal_error",
          "#pragma clang __debug overflow_stack", "#pragma clang __debug assert",
          "#pragma clang __debug llvm_unreachable", "_Pragma(\"clang __debug crash\")"}) {
        CudaCompileResult r = compileCudaToPtx(kBody + pragma + "\n  o[0] = 1;\n}\n", "debug.cu");
        EXPECT_TRUE(r.ok) << pragma << ": " << formatAll(r.diagnostics);
        EXPECT_NE(r.ptx.find("st.global"), std::string::npos) << pragma;
    }
}

TEST(ContainedCompile, AComputedGotoIsALocatedError) {
    Diagnostic d =
        onlyError(std::string(kBody) +
                  "  void* t[] = {&&a, &&b};\n  goto *t[o[0] & 1];\na: o[1] = 1; return;\nb: o[1] = 2;\n}\n");
    EXPECT_EQ(d.file, "hostile.cu");
    EXPECT_EQ(d.line, 3);
    EXPECT_TRUE(mentions(d, "computed goto")) << d.message;
}

TEST(ContainedCompile, ASymbolAliasIsALocatedError) {
    Diagnostic d = onlyError(
        "__device__ int f(int x) { return x + 1; }\n"
        "__device__ int g(int x) __attribute__((alias(\"_Z1fi\")));\n"
        "__global__ void k(int* o) { o[0] = g(o[1]); }\n");
    EXPECT_EQ(d.line, 2);
    EXPECT_TRUE(mentions(d, "alias") && mentions(d, "f(int)")) << d.message;
}

TEST(ContainedCompile, AnUnrollPastTheLimitIsRefusedAtItsPragma) {
    std::string loop = "  for (int i = 0; i < o[1]; ++i) o[i] = i;\n}\n";
    Diagnostic d = onlyError(std::string(kBody) + "#pragma unroll 1000000\n" + loop);
    EXPECT_EQ(d.line, 2);
    EXPECT_TRUE(mentions(d, "1000000") && mentions(d, "--max-unroll")) << d.message;
    // A count from a template argument is checked where the template is used.
    Diagnostic t = onlyError("template <int N> __device__ void f(int* o) {\n#pragma unroll N\n" + loop +
                             "__global__ void k(int* o) { f<5000>(o); }\n");
    EXPECT_EQ(t.line, 2);
    EXPECT_TRUE(mentions(t, "5000")) << t.message;
    CudaCompileResult ok = compileCudaToPtx(std::string(kBody) + "#pragma unroll 8\n" + loop, "ok.cu");
    EXPECT_TRUE(ok.ok) << formatAll(ok.diagnostics);
}

TEST(ContainedCompile, DeepNestingCompilesOrStopsWithALocatedError) {
    // What ran Clang out of an 8 MiB stack compiles on the compile's 64 MiB one.
    for (std::string expression :
         {repeated("(int)", 900) + "o[1]", repeated("--", 2000) + "x", "1" + repeated("\\\n", 60000)}) {
        CudaCompileResult r =
            compileCudaToPtx(std::string(kBody) + "  int x = o[1];\n  o[0] = " + expression + ";\n}\n", "deep.cu");
        EXPECT_TRUE(r.ok) << expression.substr(0, 20) << ": " << formatAll(r.diagnostics);
    }
    // Past it, the crash is the error, where the parser was.
    Diagnostic d = onlyError(std::string(kBody) + "  o[0] = " + repeated("(int)", 100000) + "o[1];\n}\n");
    EXPECT_EQ(d.line, 2);
    EXPECT_TRUE(mentions(d, "crashed") && mentions(d, "stack")) << d.message;
}

TEST(ContainedCompile, ARunawayStopsAtTheTimeLimitAtItsFunction) {
    std::string deep =
        "__device__ int pad;\n__global__ void k(int* o) {\n  int x = o[1];\n  o[0] = " + repeated("x ? ", 20000) + "1" +
        repeated(" : 0", 20000) + ";\n}\n";
    Diagnostic d = onlyError(deep, limited(1));
    EXPECT_EQ(d.line, 2);
    EXPECT_TRUE(mentions(d, "limit of 1 s of CPU time") && mentions(d, "--compile-seconds")) << d.message;
}

TEST(ContainedCompile, AnExplosionStopsAtTheMemoryOrTimeLimit) {
    Diagnostic d = onlyError(
        "template <class T, T... I> struct S { static const int n = sizeof...(I); };\n"
        "__global__ void k(int* o) { o[0] = __make_integer_seq<S, int, 100000000>::n; }\n",
        limited(5, 256));
    EXPECT_EQ(d.line, 2);
    EXPECT_TRUE(mentions(d, "--compile-memory") || mentions(d, "--compile-seconds")) << d.message;
    // Templates that double at each level.
    Diagnostic e = onlyError(
        "template <int N, long M> struct E { typedef typename E<N - 1, 2 * M>::t a;\n"
        "  typedef typename E<N - 1, 2 * M + 1>::t b; typedef a t; };\n"
        "template <long M> struct E<0, M> { typedef int t; };\n"
        "__global__ void k(int* o) { E<40, 0>::t x = 1; o[0] = x; }\n",
        limited(2, 512));
    EXPECT_TRUE(mentions(e, "--compile-memory") || mentions(e, "--compile-seconds")) << e.message;
}

TEST(ContainedCompile, TheNextCompileAfterACrashWorks) {
    onlyError(std::string(kBody) + "  o[0] = " + repeated("- ", 300000) + "o[1];\n}\n");
    CudaCompileResult r = compileCudaToPtx(std::string(kBody) + "  o[0] = 7;\n}\n", "after.cu");
    EXPECT_TRUE(r.ok) << formatAll(r.diagnostics);
}

TEST(ContainedCompile, CompilesFromTwoThreadsEachGetTheirOwnResult) {
    std::vector<CudaCompileResult> results(2);
    std::thread first([&] { results[0] = compileCudaToPtx(std::string(kBody) + "  o[0] = 11;\n}\n", "a.cu"); });
    std::thread second([&] { results[1] = compileCudaToPtx(std::string(kBody) + "  o[0] = 22;\n}\n", "b.cu"); });
    first.join();
    second.join();
    ASSERT_TRUE(results[0].ok && results[1].ok);
    EXPECT_NE(results[0].ptx.find("11"), std::string::npos);
    EXPECT_NE(results[1].ptx.find("22"), std::string::npos);
}

TEST(ContainedCompile, RequestsAndResultsSurviveTheTripAndCutBytesAreRefused) {
    CompileRequest request{std::string("src\0with nul", 12), "/v/a.cu", "/v/h.h", "a.cu", {}};
    request.options.defines = {"A=1", "B"};
    request.options.limits.maxUnroll = 17;
    std::string bytes = encodeCompileRequest(request);
    std::optional<CompileRequest> back = decodeCompileRequest(bytes);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->source, request.source);
    EXPECT_EQ(back->options.defines, request.options.defines);
    EXPECT_EQ(back->options.limits.maxUnroll, 17);
    EXPECT_FALSE(decodeCompileRequest(bytes.substr(0, bytes.size() - 1)));
    EXPECT_FALSE(decodeCompileRequest("9999999999999:x"));
    CudaCompileResult result;
    result.ok = true;
    result.ptx = "ptx";
    result.diagnostics.push_back({"a.cu", 3, 4, "careful", true});
    CudaCompileResult decoded = decodeCompileResult(encodeCompileResult(result), "a.cu");
    EXPECT_TRUE(decoded.ok);
    ASSERT_EQ(decoded.diagnostics.size(), 1u);
    EXPECT_EQ(decoded.diagnostics[0].line, 3);
    EXPECT_FALSE(decodeCompileResult("1:1", "a.cu").ok);
}

TEST(ContainedCompile, AHugeInlineAsmIsRefusedBeforeTheLoweringsGraphPasses) {
    std::string lines;
    for (int i = 0; i < 9000; ++i)
        lines += "\"setp.lt.s32 p, %0, 1;\\n@p bra L" + std::to_string(i) + ";\\nadd.s32 %0, %0, 1;\\nL" +
                 std::to_string(i) + ":\\n\"\n";
    std::string source = std::string(kBody) + "  int x = o[1];\n  asm volatile(\"{\\n.reg .pred p;\\n\"\n" + lines +
                         "\"}\" : \"+r\"(x));\n  o[0] = x;\n}\n";
    try {
        compileKernel(source, "asm.cu");
        FAIL() << "compiled";
    } catch (const DiagnosticError& e) {
        EXPECT_NE(e.diagnostics()[0].message.find("before optimization"), std::string::npos)
            << e.diagnostics()[0].message;
    }
}
