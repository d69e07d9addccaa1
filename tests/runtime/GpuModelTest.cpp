// The GPU inside the model (ALU, branches and divergence, global memory, atomics, shuffles, launch shapes) on
// the sparse fast path; tests/runtime/slow/GpuModelDenseTest.cpp runs the same launches on the dense path.
#include "GpuTestSupport.h"
#include "qgpu/compiler/Frontend.h"
#include "qgpu/core/Encoding.h"

using namespace qgpu;
using namespace qgpu::testing;

TEST(GpuModel, AlphabetRoundTrips) {
    for (int id = 0; id < gpu::vocabularySize(); ++id) ASSERT_EQ(gpu::Token::fromId(id).id(), id);
    EXPECT_THROW(gpu::Token::fromId(gpu::vocabularySize()), std::out_of_range);
}

TEST(GpuModel, StraightLineCode) {
    for (int lanes = 1; lanes <= 3; ++lanes)
        expectExample(gpuModel(Engine::Sparse), Engine::Sparse, "straight_line", lanes);
}

TEST(GpuModel, EveryAluOpcodeAcrossBlocks) { expectExample(gpuModel(Engine::Sparse), Engine::Sparse, "every_alu_op"); }

TEST(GpuModel, DivergenceLoopsAndEarlyExit) {
    for (int lanes = 1; lanes <= 4; ++lanes) expectExample(gpuModel(Engine::Sparse), Engine::Sparse, "branches", lanes);
}

TEST(GpuModel, GlobalLoadsAndStoresWithGuardedTails) {
    // vector_add.qasm on one warp: the fourth lane is past n and must not store (the guard stays 0).
    LaunchSpec launch = parseLaunchSpec(R"({"grid": 1, "block": 4, "args": [
        {"name": "a", "array": [1, 2, 3, 4, 5]}, {"name": "b", "array": [-1, 100, -200, 2147483647, 0]},
        {"name": "c", "zeros": 5}, {"name": "guard", "zeros": 2}, {"name": "n", "scalar": 3}]})");
    expectExact(gpuModel(Engine::Sparse), Engine::Sparse, example("vector_add.qasm"), launch);
    // Every word of a 1024-word memory: loads far apart, a store read back by the next instruction.
    expectExact(gpuModel(Engine::Sparse), Engine::Sparse, R"(
    sreg r1, tid.x
    mul r2, r1, 341
    ld.global r3, [r2 + 1]
    add r3, r3, r1
    jmp b1
b1:
    st.global [r2 + 1], r3
    ld.global r4, [r2 + 1]
    st.global [r1 + 1023], r4
    exit
)",
                parseLaunchSpec(R"({"grid": 1, "block": 4, "args": [{"name": "m", "array": [5, 6, 7, 8]}]})"));
}

TEST(GpuModel, TheDotProductFromCudaWithAtomics) {
    // [1, 2, 3] . [4, 5, 6] = 32: compiled from CUDA, three lanes atomically adding into one word.
    CompiledKernel k = compileKernel(example("dot_product.cu"), "dot_product.cu", MachineSpec::standard());
    LaunchSpec launch = parseLaunchSpec(example("dot_product.json"), "dot_product.json");
    expectExact(gpuModel(Engine::Sparse), Engine::Sparse, k.kernel.program, launch);
    // Atomics whose old values land in registers, lanes in ascending order on one word and on others;
    // old values landing in the atomic's own address or addend register.
    expectExact(gpuModel(Engine::Sparse), Engine::Sparse, R"(
    sreg r1, tid.x
    add r2, r1, 10
    atom.global r3, [r0 + 0], r2
    atom.global r4, [r1 + 1], r3
    jmp b1
b1:
    atom.global r5, [r0 + 0], r4
    jmp b2
b2:
    atom.global r1, [r1 + 1], r2
    atom.global r2, [r0 + 2], r2
    exit
)",
                parseLaunchSpec(R"({"grid": 1, "block": 4, "args": [{"name": "m", "array": [100, 1, 2, 3, 4]}]})"));
}

TEST(GpuModel, ShufflesOfEveryModeAndWidth) {
    // Sources past the width, inactive sources (the reader's own value), b from a register and b & 31;
    // results into the source register itself (every lane reads before any lane writes).
    const std::string program = R"(
    sreg r1, tid.x
    mul r2, r1, 10
    add r2, r2, 7
    shfl.down r3, r2, 1, 4
    jmp b1
b1:
    shfl.up r4, r2, 1, 2
    shfl.bfly r5, r2, 3, 4
    shfl.idx r6, r2, 2, 4
    shfl.down r7, r2, r1, 4
    jmp b2
b2:
    setlt r8, r1, 2
    br r8, b3, b4
b3:
    shfl.bfly r9, r2, 2, 4
    shfl.idx r10, r2, 1, 1
    shfl.idx r11, r2, 7, 2
    jmp b4
b4:
    shfl.up r12, r2, 33, 4
    shfl.bfly r13, r2, 4, 4
    jmp b5
b5:
    shfl.up r2, r2, 1, 4
    shfl.bfly r2, r2, 1, 4
    shfl.idx r2, r2, 3, 4
    exit
)";
    for (int lanes : {3, 4}) expectExact(gpuModel(Engine::Sparse), Engine::Sparse, program, lanes);
    // Two warps: each shuffles within its own lanes.
    expectExact(gpuModel(Engine::Sparse), Engine::Sparse, program, 7);
}

TEST(GpuModel, SharedMemoryAndBarriersAcrossWarps) {
    // Examples whose warps meet at barriers and pass values through shared memory.
    for (const char* name : {"tree_reduce", "prefix_scan", "reverse"})
        expectExample(gpuModel(Engine::Sparse), Engine::Sparse, name);
    // Two thread blocks of three warps: warp 1 exits before the barriers, which then pass it with an empty
    // EXEC; shared atomics; each block's shared memory starts at zero.
    expectExact(gpuModel(Engine::Sparse), Engine::Sparse, R"(
    sreg r1, tid.x
    sreg r2, warpid
    seteq r3, r2, 1
    br r3, b3, b1
b1:
    atom.shared r4, [r0 + 0], r1
    st.shared [r1 + 1], r1
    bar b2
b2:
    ld.shared r5, [r0 + 0]
    sreg r6, ctaid.x
    mul r6, r6, 16
    bar b4
b3:
    exit
b4:
    add r7, r6, r1
    ld.shared r8, [r1 + 2]
    st.global [r7 + 0], r5
    st.global [r7 + 100], r8
    exit
)",
                parseLaunchSpec(R"({"grid": 2, "block": 10, "args": [{"name": "m", "zeros": 200}]})"));
}

namespace {

// A full ROM: 128 blocks, each adding its own constant (some above 255, so their words are spelt in bytes).
// Even lanes run every block in order; odd lanes branch from block 0 to block 96, in the last ROM bank, and
// wait there for the others (the min-PC rule over 7-bit pcs). Launched with kFullRomLaunch.
std::string fullRom() {
    std::string s = "b0:\n    sreg r1, tid.x\n    and r4, r1, 1\n    br r4, b96, b1\n";
    for (int b = 1; b < 127; ++b)
        s += "b" + std::to_string(b) + ":\n    add r2, r2, " + std::to_string(b * 37 % 300) + "\n    jmp b" +
             std::to_string(b + 1) + "\n";
    return s + "b127:\n    st.global [r1 + $out], r2\n    exit\n";
}
constexpr const char* kFullRomLaunch = R"({"grid": 1, "block": 4, "args": [{"name": "out", "zeros": 4}]})";

}  // namespace

TEST(GpuModel, AProgramThatFillsTheRomRunsFromEveryBank) {
    LaunchSpec launch = parseLaunchSpec(kFullRomLaunch);
    Program program = linkLaunch(assemble(fullRom(), "rom.qasm"), launch).program;
    ASSERT_EQ(program.blocks.size(), size_t(gpu::kBlocks));
    // Blocks past the first 32 have no one-token ROM form: a half word below 256 is a byte, then ROM.
    std::vector<gpu::Token> fed = gpu::loadTokens(program, launch.grid, launch.block);
    int smallBelow = 0, smallAbove = 0;
    for (const gpu::Token& t : fed)
        if (t.kind == gpu::Kind::RomWrite && t.small) ++(t.block < gpu::kSmallRomBlocks ? smallBelow : smallAbove);
    EXPECT_GT(smallBelow, 31);  // at least the immediates of blocks 1..31
    EXPECT_EQ(smallAbove, 0);

    GpuStepper stepper(gpuModel(Engine::Sparse), program, launch.grid, launch.block);
    auto rom = stepper.decodeRom();
    for (size_t b = 0; b < program.blocks.size(); ++b) {
        std::vector<uint64_t> words = encodeBlock(program.blocks[b], gpu::kSlots);
        for (size_t slot = 0; slot < 4; ++slot)
            EXPECT_EQ(rom[b][slot], words[slot]) << "block " << b << " slot " << slot;
        EXPECT_EQ(rom[b][4] & ~(uint64_t(15) << gpu::kWritesMaskShift), words[4]) << "block " << b;
    }
    while (!(stepper.advance().kind == gpu::Kind::Exec && stepper.written().back().block == 1)) {
        ASSERT_LT(stepper.written().size(), 64u);
    }
    MachineState state = stepper.decode();
    for (int lane = 0; lane < 4; ++lane) EXPECT_EQ(state.lane(0, lane).pc, lane % 2 ? 96 : 1) << "lane " << lane;

    expectExact(gpuModel(Engine::Sparse), Engine::Sparse, fullRom(), launch);
}

TEST(GpuModel, RejectsLaunchesTooBigForTheMachine) {
    // 9 blocks of 16 threads are 36 warps: more than the machine's 32.
    try {
        gpuModel(Engine::Sparse).run(assemble("exit\n", "exit.qasm"), Dim3{9, 1, 1}, Dim3{16, 1, 1});
        FAIL() << "expected a DiagnosticError";
    } catch (const DiagnosticError& e) {
        EXPECT_NE(std::string(e.what()).find("9 blocks of 16 threads"), std::string::npos) << e.what();
    }
}

TEST(GpuModel, LaunchShapesAreTokensWithTheirCounts) {
    // BLOCK(4, 2, 1): ntid 4 x 2 x 1, 8 threads in 2 warps; GRID(3, 1, 1): 3 thread blocks.
    std::vector<gpu::Token> fed = gpu::loadTokens(assemble("exit\n", "exit.qasm"), Dim3{3, 1, 1}, Dim3{4, 2, 1});
    ASSERT_GE(fed.size(), 2u);
    EXPECT_EQ(fed[fed.size() - 2].text(), "BLOCK(4,2,1)");
    EXPECT_EQ(fed.back().text(), "GRID(3,1,1)");
    EXPECT_EQ(gpu::shapeWord(fed[fed.size() - 2]), 3u | 1u << 5 | 7u << 15 | 1u << 20);
    EXPECT_EQ(gpu::shapeWord(fed.back()), 2u | 2u << 15);
}

TEST(GpuModel, Bfloat16WeightsRunLaunchesExactlyToo) {
    // Every weight rounded to bf16, as `qgpu build-gpu --dtype bf16` stores it: the same records, registers
    // and memory, with barriers, shared memory, shuffles and atomics across two warps.
    auto bf16 = GpuModel::build({Engine::Sparse}, gpu::defaultMachineGeometry(), DType::BF16);
    expectExample(*bf16, Engine::Sparse, "tree_reduce");
    CompiledKernel k = compileKernel(example("dot_product.cu"), "dot_product.cu", MachineSpec::standard());
    expectExact(*bf16, Engine::Sparse, k.kernel.program,
                parseLaunchSpec(example("dot_product.json"), "dot_product.json"));
    EXPECT_TRUE(expectSuiteKernel(*bf16, "shfl_down_reduce"));
}

namespace {

// A kernel over thread blocks of 8 (two warps) with `body` before its last line: a __syncthreads() that some
// lanes skip or return before.
Program barrierKernel(const std::string& body) {
    std::string src =
        "__global__ void k(const int* a, int* out, int n) {\n  __shared__ int s[8];\n"
        "  int t = threadIdx.x;\n" +
        body + "  out[t] = s[7 - t];\n}\n";
    return compileKernel(src, "k.cu", MachineSpec::standard()).kernel.program;
}

const char* kBarrierLaunch = R"({"grid": 2, "block": 8, "args": [{"name": "a", "array": [1, 2, 3, 4, 5, 6, 7, 8]},
    {"name": "out", "zeros": 8}, {"name": "n", "scalar": 6}]})";

}  // namespace

TEST(GpuModel, LanesThatReturnBeforeABarrierCountAsArrived) {
    // Lanes 6 and 7 of each block return: warp 1's other lanes reach the barrier alone, and the launch runs.
    Program p = barrierKernel("  if (t >= n) return;\n  s[t] = a[t] * 2;\n  __syncthreads();\n");
    LaunchSpec launch = parseLaunchSpec(kBarrierLaunch);
    expectExact(gpuModel(Engine::Sparse), Engine::Sparse, p, launch);
    EXPECT_TRUE(gpu::referenceLaunch(linkLaunch(p, launch).program, launch).fault.empty());
}

TEST(GpuModel, TheModelEndsALaunchWhoseBarrierPartOfAWarpReachesWithAFault) {
    // Lanes 0 and 1 reach the barrier, lanes 2 and 3 of warp 0 go on: the circuit detects it, writes
    // FAULT with the lanes that did not arrive, and the interpreter's stream ends the same way.
    Program p = barrierKernel("  s[t] = a[t];\n  if (t < 2)\n    __syncthreads();\n");
    LaunchSpec launch = parseLaunchSpec(kBarrierLaunch);
    Program linked = linkLaunch(p, launch).program;
    gpu::ReferenceLaunch ref = gpu::referenceLaunch(linked, launch);
    ASSERT_FALSE(ref.stream.empty());
    EXPECT_EQ(ref.stream.back().text(), "FAULT(bar,{2,3})");
    EXPECT_NE(ref.fault.find("lanes {0,1} while lane 2"), std::string::npos) << ref.fault;
    expectExact(gpuModel(Engine::Sparse), Engine::Sparse, p, launch);
    GpuLaunch run = gpuModel(Engine::Sparse).run(linked, launch.grid, launch.block, ref.initialGlobal);
    EXPECT_TRUE(run.ended);
    EXPECT_EQ(run.fault, ref.fault);
}
