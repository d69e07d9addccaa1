// -g: the kernel's CUDA variables, read from the DWARF in Clang's PTX: their types, scopes and places in the
// thread's local-memory frame at -O0, and their values read from the machine's memory after a run.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <set>
#include <stdexcept>

#include "DwarfTree.h"
#include "KernelRun.h"
#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Variables.h"

using namespace qgpu;

namespace {

using qgpu::tests::FinishedRun;
using qgpu::tests::runKernel;

const char* kSum =
    "__global__ void k(int* out, int n) {\n"                // 1
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"  // 2
    "    int s = 0;\n"                                      // 3
    "    for (int j = 0; j < n; ++j) {\n"                   // 4
    "        s += j * i;\n"                                 // 5
    "    }\n"                                               // 6
    "    out[i] = s;\n"                                     // 7
    "}\n";                                                  // 8
const char* kSumLaunch = R"({"grid":[2],"block":[4],"args":[{"name":"out","zeros":8},{"name":"n","scalar":4}]})";

CudaCompileOptions debugBuild(int optLevel = 0) {
    CudaCompileOptions o;
    o.optLevel = optLevel;
    o.debugInfo = true;
    return o;
}

const ProgramVariable& variable(const Program& p, const std::string& name) {
    for (const auto& v : p.variables)
        if (v.name == name) return v;
    throw std::runtime_error("no variable " + name);
}

int64_t valueIn(const FinishedRun& run, const std::string& name, int slot) {
    std::optional<int64_t> v = readVariable(run.state, run.map, run.program, variable(run.program, name), slot);
    EXPECT_TRUE(v.has_value()) << name;
    return v.value_or(-999);
}

TEST(DebugInfo, AnO0BuildWithGListsTheKernelsParametersAndVariablesWithTypesScopesAndFramePlaces) {
    Program p = compileKernel(kSum, "k.cu", MachineSpec::standard(), debugBuild()).kernel.program;
    ASSERT_EQ(p.variables.size(), 5u);
    const ProgramVariable& out = variable(p, "out");
    EXPECT_TRUE(out.parameter);
    EXPECT_EQ(out.typeName, "int *");
    EXPECT_EQ(out.kind, ProgramVariable::Kind::Pointer);
    EXPECT_EQ(out.declLine, 1);
    const ProgramVariable& s = variable(p, "s");
    EXPECT_FALSE(s.parameter);
    EXPECT_EQ(s.typeName, "int");
    EXPECT_EQ(s.element, ElementType::I32);
    EXPECT_EQ(s.declLine, 3);
    EXPECT_EQ(s.firstLine, 1);
    EXPECT_EQ(s.lastLine, 8);
    const ProgramVariable& j = variable(p, "j");  // the loop's own scope
    EXPECT_EQ(j.declLine, 4);
    EXPECT_GE(j.firstLine, 4);
    EXPECT_LE(j.lastLine, 6);
    std::set<int> places;
    for (const auto& v : p.variables) {
        EXPECT_GE(v.frameByte, 0) << v.name;
        EXPECT_LE(v.frameByte + v.bytes, p.localWords * 4) << v.name;
        places.insert(v.frameByte);
    }
    EXPECT_EQ(places.size(), p.variables.size());
}

TEST(DebugInfo, EachThreadsVariablesAreReadFromItsFrameAfterTheRun) {
    FinishedRun run = runKernel(kSum, kSumLaunch, debugBuild());
    for (int thread = 0; thread < 8; ++thread) {  // 4 lanes a warp: thread t is slot t here
        EXPECT_EQ(valueIn(run, "i", thread), thread);
        EXPECT_EQ(valueIn(run, "s", thread), 6 * thread);  // (0 + 1 + 2 + 3) * i
        EXPECT_EQ(valueIn(run, "j", thread), 4);
        EXPECT_EQ(valueIn(run, "n", thread), 4);
        EXPECT_EQ(formatVariable(run.state, run.map, run.program, variable(run.program, "out"), thread), "&out[0]");
    }
}

TEST(DebugInfo, NarrowSignedFloatAndSixtyFourBitVariablesReadInTheirTypes) {
    const char* source =
        "struct Pair { int a; short b; };\n"
        "__global__ void k(int* out, signed char c) {\n"
        "    bool flag = c < 0;\n"
        "    unsigned short h = 65000;\n"
        "    long long big = -5000000000LL;\n"
        "    float x = -7.5f;\n"
        "    Pair pair = {7, -2};\n"
        "    const int* p = out + 1;\n"
        "    out[threadIdx.x] = flag + h + pair.a + pair.b + (int)(big >> 32) + *p + (x < 0);\n"
        "}\n";
    FinishedRun run = runKernel(
        source, R"({"grid":1,"block":1,"args":[{"name":"out","zeros":2},{"name":"c","type":"i8","scalar":-3}]})",
        debugBuild());
    auto shown = [&](const std::string& name) {
        return formatVariable(run.state, run.map, run.program, variable(run.program, name), 0);
    };
    EXPECT_EQ(shown("c"), "-3");
    EXPECT_EQ(shown("flag"), "true");
    EXPECT_EQ(shown("h"), "65000");
    EXPECT_EQ(shown("big"), "-5000000000");
    EXPECT_EQ(shown("x"), "-7.5");
    EXPECT_EQ(shown("p"), "&out[1]");
    EXPECT_EQ(variable(run.program, "p").typeName, "const int *");
    EXPECT_EQ(variable(run.program, "pair").typeName, "Pair");
    EXPECT_EQ(variable(run.program, "pair").kind, ProgramVariable::Kind::Aggregate);
    EXPECT_EQ(shown("pair").substr(0, 12), "{07 00 00 00");  // a = 7, little-endian
}

TEST(DebugInfo, ADeviceFunctionsVariablesFollowTheKernelsAndKeepTheirValuesAfterItReturns) {
    const char* source =
        "__device__ int helper(int a, int b) {\n"
        "    int t = a * b;\n"
        "    return t + 1;\n"
        "}\n"
        "__global__ void k(int* out, int n) {\n"
        "    int i = threadIdx.x;\n"
        "    out[i] = helper(i, n);\n"
        "}\n";
    FinishedRun run =
        runKernel(source, R"({"block":4,"args":[{"name":"out","zeros":4},{"name":"n","scalar":5}]})", debugBuild());
    const std::vector<ProgramVariable>& vars = run.program.variables;
    ASSERT_EQ(vars.size(), 6u);
    EXPECT_EQ(vars.front().function, "k");  // the kernel's first
    const ProgramVariable& t = variable(run.program, "t");
    EXPECT_EQ(t.function, "helper");
    EXPECT_EQ(t.firstLine, 1);
    EXPECT_EQ(t.lastLine, 3);  // its last line with code: the return
    for (int thread = 0; thread < 4; ++thread) EXPECT_EQ(valueIn(run, "t", thread), 5 * thread);
    EXPECT_NE(
        formatThreadVariables(run.state, run.map, run.program, parseLaunchSpec(R"({"block":4})"),
                              MachineSpec::standard())
            .find("thread 3 (block 0, 3): out = &out[0], n = 5, i = 3, helper::a = 3, helper::b = 5, helper::t = 15"),
        std::string::npos);
}

TEST(DebugInfo, OptimizedOrPlainBuildsListNoVariablesAndAnOptimizedGBuildSaysWhy) {
    CompiledKernel optimized = compileKernel(kSum, "k.cu", MachineSpec::standard(), debugBuild(2));
    EXPECT_TRUE(optimized.kernel.program.variables.empty());
    bool said = false;
    for (const auto& w : optimized.warnings) said |= w.message.find("build with -O0 -g") != std::string::npos;
    EXPECT_TRUE(said);
    CudaCompileOptions plain;
    plain.optLevel = 0;
    EXPECT_TRUE(compileKernel(kSum, "k.cu", MachineSpec::standard(), plain).kernel.program.variables.empty());
}

TEST(DebugInfo, AGBuildRunsTheSameMachineCodeAsAPlainBuild) {
    CudaCompileOptions plain;
    plain.optLevel = 0;
    Program a = compileKernel(kSum, "k.cu", MachineSpec::standard(), plain).kernel.program;
    Program b = compileKernel(kSum, "k.cu", MachineSpec::standard(), debugBuild()).kernel.program;
    ASSERT_EQ(a.blocks.size(), b.blocks.size());
    for (size_t i = 0; i < a.blocks.size(); ++i) {
        EXPECT_EQ(a.blocks[i].body, b.blocks[i].body);
        EXPECT_EQ(a.blocks[i].terminator, b.blocks[i].terminator);
    }
}

TEST(DwarfTree, SectionsKeepTheirSymbolsAndTruncatedInformationIsUnreadable) {
    dwarf::Section s = dwarf::readSection({".b8 1 // a comment", ".b32 300", ".b64 __local_depot0", ".b8 2, 3"});
    ASSERT_EQ(s.bytes.size(), 15u);
    EXPECT_EQ(s.bytes[1], 300 & 0xff);
    EXPECT_EQ(s.bytes[2], 300 >> 8);
    EXPECT_EQ(s.symbols.at(5), "__local_depot0");
    EXPECT_EQ(s.bytes[14], 3);
    dwarf::Section truncated = dwarf::readSection({".b32 100", ".b8 2", ".b8 0"});
    EXPECT_THROW(dwarf::readTree(truncated, {}, {}), dwarf::Unreadable);
    dwarf::Section huge = dwarf::readSection({".b64 99999999999999999999999", ".b8 -", ".b16 0xzz"});
    EXPECT_EQ(huge.bytes.size(), 11u);  // numbers out of range or unreadable do not stop the reader
}

TEST(DwarfTree, RandomSectionsAreReadOrRefusedNeverACrash) {
    std::mt19937 random(7);
    auto section = [&](size_t bytes) {
        std::vector<std::string> lines = {".b32 " + std::to_string(random() % 64), ".b8 2", ".b8 0"};
        for (size_t i = 0; i < bytes; ++i) lines.push_back(".b8 " + std::to_string(random() % 256));
        return dwarf::readSection(lines);
    };
    int read = 0;
    for (int i = 0; i < 3000; ++i) try {
            dwarf::readTree(section(random() % 64), section(random() % 32), section(random() % 8));
            ++read;
        } catch (const dwarf::Unreadable&) {
        }
    EXPECT_LT(read, 3000);
}

}  // namespace
