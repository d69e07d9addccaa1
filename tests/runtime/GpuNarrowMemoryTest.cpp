// Bytes and halfwords in memory (bool, signed char, unsigned char, short, unsigned short), in global and
// shared memory, at every position inside a word, at indices computed at run time and fixed at compile
// time, loaded and stored: on the reference interpreter against what CUDA computes (worked out here), and in
// the model (sparse engine) against the interpreter, token for token.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "GpuTestSupport.h"
#include "qgpu/core/Interpreter.h"
#include "qgpu/core/Trace.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

constexpr int kThreads = 13;  // three warps and a partial one

struct NarrowCase {
    std::string cudaType;
    ElementType type;
    std::function<int64_t(int64_t v, int t, int64_t s)> change;  // what the kernel computes, in the type
};

// Wraps x to the type's width, sign- or zero-extended as the launch holds its elements.
int64_t wrap(int64_t x, ElementType type) { return unpackElements(packElements({x}, type), type, 1).at(0); }

// Each thread loads in[t] (computed index), stores it rotated into a __shared__ tile, loads tile[t] and
// stores change(tile[t]) reversed into out; thread 0 also moves in[0..3] through fixed places of a second
// tile into fixedOut in another order. Neighbouring lanes touch neighbouring bytes of one word.
std::string kernelSource(const NarrowCase& c) {
    const std::string T = c.cudaType;
    std::string change = c.type == ElementType::Bool ? "(v != (t & 1)) != s" : "(" + T + ")(v * 3 + s - t)";
    return "__global__ void narrow(const " + T + "* in, " + T + "* out, " + T + "* fixedOut, " + T + " s, int n) {\n" +
           "  __shared__ " + T + " tile[16];\n  __shared__ " + T + " fixedTile[4];\n" +
           "  int t = threadIdx.x;\n  tile[(t + 3) % n] = in[t];\n  __syncthreads();\n" + "  " + T +
           " v = tile[t];\n  out[n - 1 - t] = " + change + ";\n" +
           "  if (t == 0) {\n    fixedTile[2] = in[0];\n    fixedTile[0] = in[1];\n    fixedTile[3] = in[2];\n" +
           "    fixedTile[1] = in[3];\n    fixedOut[3] = fixedTile[0];\n    fixedOut[0] = fixedTile[1];\n" +
           "    fixedOut[1] = fixedTile[2];\n    fixedOut[2] = fixedTile[3];\n  }\n}\n";
}

LaunchSpec launchFor(const NarrowCase& c, const std::vector<int64_t>& in, int64_t s) {
    LaunchSpec launch;
    launch.block = {kThreads, 1, 1};
    launch.args = {{"in", true, in, c.type},
                   {"out", true, std::vector<int64_t>(kThreads, 0), c.type},
                   {"fixedOut", true, std::vector<int64_t>(4, 0), c.type},
                   {"s", false, {s}, c.type},
                   {"n", false, {kThreads}, ElementType::I32}};
    return launch;
}

std::vector<int64_t> arrayAfter(const Program& program, const LaunchSpec& launch, const std::string& name) {
    LinkedLaunch linked = linkLaunch(program, launch);
    Interpreter interp(linked.program, launch, MachineSpec::standard());
    for (int steps = 0; !interp.done() && steps < 100000; ++steps) {
        StepEvent ev = interp.step();
        EXPECT_TRUE(ev.fault.empty()) << ev.fault;
        EXPECT_TRUE(ev.warnings.empty()) << ev.warnings.front().describe();
    }
    EXPECT_TRUE(interp.done());
    return readArray(interp.state(), *linked.map.find(name));
}

void expectNarrowMemory(const NarrowCase& c, const std::vector<int64_t>& in, int64_t s) {
    SCOPED_TRACE(c.cudaType);
    LaunchSpec launch = launchFor(c, in, s);
    std::vector<int64_t> out(kThreads), fixed = {in[3], in[0], in[2], in[1]};
    for (int t = 0; t < kThreads; ++t)
        out[size_t(kThreads - 1 - t)] = c.change(in[size_t((t + kThreads - 3) % kThreads)], t, s);
    for (int opt : {1, 3}) {
        CudaCompileOptions options;
        options.optLevel = opt;
        Program program = compileKernel(kernelSource(c), "narrow.cu", MachineSpec::standard(), options).kernel.program;
        EXPECT_EQ(arrayAfter(program, launch, "out"), out) << "-O" << opt;
        EXPECT_EQ(arrayAfter(program, launch, "fixedOut"), fixed) << "-O" << opt;
        EXPECT_EQ(arrayAfter(program, launch, "in"), in) << "-O" << opt;
        if (opt == 3) expectExact(gpuModel(Engine::Sparse), Engine::Sparse, program, launch);
    }
}

// The same bit patterns read as the unsigned type.
std::vector<int64_t> asUnsigned(const std::vector<int64_t>& values, ElementType type) {
    std::vector<int64_t> out;
    for (int64_t v : values) out.push_back(wrap(v, type));
    return out;
}

NarrowCase integerCase(const std::string& cudaType, ElementType type) {
    return {cudaType, type, [type](int64_t v, int t, int64_t s) { return wrap(int64_t(v) * 3 + s - t, type); }};
}

}  // namespace

TEST(GpuNarrowMemory, BoolArraysInGlobalAndSharedMemory) {
    NarrowCase c{"bool", ElementType::Bool, [](int64_t v, int t, int64_t s) { return int64_t((v != (t & 1)) != s); }};
    expectNarrowMemory(c, {1, 1, 0, 1, 0, 0, 1, 1, 1, 0, 1, 0, 0}, 1);
}

TEST(GpuNarrowMemory, SignedAndUnsignedBytes) {
    std::vector<int64_t> bytes = {-128, 127, -1, 0, 1, 100, -100, 55, -56, 3, -4, 90, -91};
    expectNarrowMemory(integerCase("signed char", ElementType::I8), bytes, -7);
    expectNarrowMemory(integerCase("unsigned char", ElementType::U8), asUnsigned(bytes, ElementType::U8), 200);
}

TEST(GpuNarrowMemory, SignedAndUnsignedHalfwords) {
    std::vector<int64_t> halves = {-32768, 32767, -1, 0, 1, 1000, -1000, 12345, -12346, 3, -4, 30000, -30001};
    expectNarrowMemory(integerCase("short", ElementType::I16), halves, -300);
    expectNarrowMemory(integerCase("unsigned short", ElementType::U16), asUnsigned(halves, ElementType::U16), 65000);
}

TEST(GpuSuite, BytesAndHalfwordsInMemory) {
    for (const char* name :
         {"bool_mask", "char_reverse", "short_stencil", "uchar4_gray", "lookup_tables", "dynamic_shared_scan",
          "byte_histogram", "uchar3_invert", "short2_dot", "local_sort", "mat4_square"})
        EXPECT_TRUE(expectSuiteKernel(gpuModel(Engine::Sparse), name)) << name;
}
