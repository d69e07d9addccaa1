#include "SequenceHarness.h"

#include <gtest/gtest.h>

#include <random>

#include "qgpu/core/Interpreter.h"
#include "qgpu/core/Trace.h"

namespace qgpu::testing {
namespace {

std::string array(const std::vector<uint32_t>& v) {
    std::string s;
    for (uint32_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(int32_t(x));
    return "[" + s + "]";
}

}  // namespace

std::vector<uint32_t> operands(uint32_t seed, std::vector<uint32_t> edges) {
    std::mt19937 rng(seed);
    while (edges.size() < kThreads) {
        uint32_t v = rng();
        edges.push_back(rng() % 2 ? v : v >> (rng() % 32));  // small values too
    }
    edges.resize(kThreads);
    return edges;
}

// Runs `program` over arrays a, b, c (one word per thread) into `out`.
Outcome run(const Program& program, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
            const std::vector<uint32_t>& c, bool isFloat) {
    std::string json = R"({"grid": 4, "block": 32, "args": [{"name": "a", "array": )" + array(a) +
                       R"(}, {"name": "b", "array": )" + array(b) + R"(}, {"name": "c", "array": )" + array(c) +
                       R"(}, {"name": "out", "zeros": 128}]})";
    LaunchSpec launch = parseLaunchSpec(json, "launch.json");
    for (auto& arg : launch.args)
        arg.type = isFloat ? ElementType::F32 : ElementType::I32;  // the words are the floats' bits
    MachineSpec spec = MachineSpec::standard();
    LinkedLaunch linked = linkLaunch(program, launch, spec);
    const MemoryMap& map = linked.map;
    Interpreter interp(linked.program, launch, spec);
    Outcome r;
    for (int steps = 0; !interp.done(); ++steps) {
        if (steps == 1000000) {
            ADD_FAILURE() << "the launch did not end within a million warp steps";
            break;
        }
        StepEvent ev = interp.step();
        EXPECT_TRUE(ev.fault.empty()) << ev.fault;
        if (!ev.fault.empty()) break;
        for (const StepWarning& w : ev.warnings) r.warnings.push_back(w.describe());
    }
    for (int32_t v : readArray(interp.state(), *map.find("out"))) r.out.push_back(uint32_t(v));
    EXPECT_EQ(r.out.size(), size_t(kThreads));
    return r;
}

Outcome runCuda(const std::string& expression, const std::string& type, const std::vector<uint32_t>& a,
                const std::vector<uint32_t>& b, const CudaCompileOptions& options) {
    std::string src = "__global__ void k(const " + type + "* a, const " + type + "* b, const " + type + "* c, " + type +
                      "* out) {\n  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  " + type +
                      " x = a[i], y = b[i];\n  out[i] = " + expression + ";\n}\n";
    CompiledKernel k = compileKernel(src, "k.cu", MachineSpec::standard(), options);
    return run(k.kernel.program, a, b, std::vector<uint32_t>(kThreads, 0), type == "float");
}

// A kernel in PTX: out[i] = OP(a[i], b[i], c[i]) for the given instruction text over %r1..%r3 into %r4.
Program ptxKernel(const std::string& instruction) {
    std::string text = R"(.version 7.0
.target sm_75
.address_size 64
.visible .entry k(.param .u64 k_a, .param .u64 k_b, .param .u64 k_c, .param .u64 k_out)
{
	.reg .b32 %r<8>;
	.reg .b64 %rd<12>;
	ld.param.u64 %rd1, [k_a];
	ld.param.u64 %rd2, [k_b];
	ld.param.u64 %rd3, [k_c];
	ld.param.u64 %rd4, [k_out];
	mov.u32 %r5, %tid.x;
	mov.u32 %r6, %ctaid.x;
	mad.lo.s32 %r7, %r6, 32, %r5;
	mul.wide.u32 %rd5, %r7, 4;
	add.s64 %rd6, %rd1, %rd5;
	add.s64 %rd7, %rd2, %rd5;
	add.s64 %rd8, %rd3, %rd5;
	add.s64 %rd9, %rd4, %rd5;
	ld.global.u32 %r1, [%rd6];
	ld.global.u32 %r2, [%rd7];
	ld.global.u32 %r3, [%rd8];
	)" + instruction +
                       R"(;
	st.global.u32 [%rd9], %r4;
	ret;
}
)";
    return lowerKernel(ptx::parse(text), {"a", "b", "c", "out"}, "k.ptx").program;
}

}  // namespace qgpu::testing
