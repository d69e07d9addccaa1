// Every atomic on global and shared memory against a sequential model of the machine's order: lanes in
// ascending order and a warp undisturbed until it exits or waits at a barrier, so the threads of a launch
// act one after another by their global index (within a block, for a block's shared word). Each thread
// writes the old value it got, which pins down the order and every intermediate value, not only the last.
#include <gtest/gtest.h>

#include <functional>

#include "SequenceHarness.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

using Update = std::function<uint32_t(uint32_t old, uint32_t a, uint32_t b)>;

struct AtomicCase {
    std::string call;  // over `word` (an unsigned lvalue), x = a[i], y = b[i]
    Update update;
};

const std::vector<AtomicCase>& cases() {
    static const std::vector<AtomicCase> all = {
        {"atomicExch(&word, x)", [](uint32_t, uint32_t a, uint32_t) { return a; }},
        {"atomicExch_block(&word, x)", [](uint32_t, uint32_t a, uint32_t) { return a; }},
        {"atomicCAS(&word, y, x)", [](uint32_t o, uint32_t a, uint32_t b) { return o == b ? a : o; }},
        {"atomicMin((int*)&word, (int)x)", [](uint32_t o, uint32_t a, uint32_t) { return int(a) < int(o) ? a : o; }},
        {"atomicMax((int*)&word, (int)x)", [](uint32_t o, uint32_t a, uint32_t) { return int(a) > int(o) ? a : o; }},
        {"atomicMin(&word, x)", [](uint32_t o, uint32_t a, uint32_t) { return a < o ? a : o; }},
        {"atomicMax_system(&word, x)", [](uint32_t o, uint32_t a, uint32_t) { return a > o ? a : o; }},
        {"atomicInc(&word, x & 15)", [](uint32_t o, uint32_t a, uint32_t) { return o >= (a & 15) ? 0 : o + 1; }},
        {"atomicDec(&word, x & 15)",
         [](uint32_t o, uint32_t a, uint32_t) { return o == 0 || o > (a & 15) ? (a & 15) : o - 1; }},
        {"atomicAnd(&word, x | y)", [](uint32_t o, uint32_t a, uint32_t b) { return o & (a | b); }},
        {"atomicOr(&word, x & y)", [](uint32_t o, uint32_t a, uint32_t b) { return o | (a & b); }},
        {"atomicXor(&word, x)", [](uint32_t o, uint32_t a, uint32_t) { return o ^ a; }},
        {"atomicAdd(&word, x)", [](uint32_t o, uint32_t a, uint32_t) { return o + a; }},
        {"atomicSub_block(&word, x)", [](uint32_t o, uint32_t a, uint32_t) { return o - a; }},
    };
    return all;
}

// The old values the threads get, acting one after another (groups of `perWord` threads share a word,
// which starts at c[group]).
std::vector<uint32_t> sequential(const Update& update, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                                 const std::vector<uint32_t>& c, int perWord) {
    std::vector<uint32_t> old(kThreads), word(c);
    for (int i = 0; i < kThreads; ++i) {
        uint32_t& w = word[size_t(i / perWord)];
        old[size_t(i)] = w;
        w = update(w, a[size_t(i)], b[size_t(i)]);
    }
    return old;
}

std::string kernel(const std::string& call, bool shared) {
    std::string body = shared ? "  __shared__ unsigned word;\n  if (threadIdx.x == 0) word = c[blockIdx.x];\n"
                                "  __syncthreads();\n"
                              : "  unsigned& word = c[0];\n";
    return "__global__ void k(unsigned* a, unsigned* b, unsigned* c, unsigned* out) {\n"
           "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  unsigned x = a[i], y = b[i];\n" +
           body + "  out[i] = " + call + ";\n}\n";
}

}  // namespace

TEST(Atomics, EveryAtomicOnGlobalAndSharedMemoryActsInTheMachinesOrder) {
    std::vector<uint32_t> a = operands(3, {0, 1, 15, 16, 0x80000000u, 0x7fffffffu, 0xffffffffu});
    std::vector<uint32_t> b = operands(4, {0, 0xffffffffu});
    for (const AtomicCase& atomic : cases()) {
        std::vector<uint32_t> c = {7, 0x80000000u, 3, 0xffffffffu};
        // Half the compare-and-swaps find the value they compare with.
        if (atomic.call.rfind("atomicCAS", 0) == 0)
            for (int i = 0; i < kThreads; i += 2)
                b[size_t(i)] = sequential(atomic.update, a, b, c, kThreads)[size_t(i)];
        for (bool shared : {false, true}) {
            SCOPED_TRACE(atomic.call + (shared ? " on shared memory" : " on global memory"));
            CompiledKernel k = compileKernel(kernel(atomic.call, shared), "atomic.cu");
            Outcome r = run(k.kernel.program, a, b, std::vector<uint32_t>(c.begin(), c.end()));
            std::vector<uint32_t> expected = sequential(atomic.update, a, b, c, shared ? 32 : kThreads);
            EXPECT_EQ(r.out, expected);
        }
    }
}
