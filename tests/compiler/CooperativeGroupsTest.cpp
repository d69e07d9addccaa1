// Cooperative groups (resources/include/cooperative_groups.h) on the reference interpreter: tiles of 1, 2
// and 4 threads reduce, shuffle and vote within themselves; what the machine cannot do is refused at its line.
#include <gtest/gtest.h>

#include "SequenceHarness.h"
#include "qgpu/core/Diagnostic.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

const std::string kPrelude =
    "#include <cooperative_groups.h>\nnamespace cg = cooperative_groups;\n"
    "__global__ void k(const int* a, const int* b, const int* c, int* out) {\n"
    "  cg::thread_block block = cg::this_thread_block();\n"
    "  int i = blockIdx.x * block.size() + block.thread_rank();\n";

// The first error of a kernel body after kPrelude (lines 1 to 5).
Diagnostic firstError(const std::string& body) {
    try {
        compileKernel(kPrelude + body + "}\n", "k.cu");
    } catch (const DiagnosticError& e) {
        return e.diagnostics().at(0);
    }
    ADD_FAILURE() << "compiled: " << body;
    return {};
}

}  // namespace

TEST(CooperativeGroups, TilesReduceWithinThemselves) {
    auto a = operands(21, {});
    for (auto& x : a) x %= 1000;
    for (unsigned n : {1u, 2u, 4u}) {
        std::string tile = "cg::tiled_partition<" + std::to_string(n) + ">(block)";
        CompiledKernel k = compileKernel(kPrelude + "  auto t = " + tile +
                                             ";\n  out[i] = cg::reduce(t, a[i], cg::plus<int>()) * 64 + "
                                             "(int)t.thread_rank() * 8 + (int)t.meta_group_rank() % 8;\n}\n",
                                         "k.cu");
        Outcome r = run(k.kernel.program, a, a, a);
        for (int i = 0; i < kThreads; ++i) {
            int base = i - i % int(n), sum = 0;
            for (unsigned l = 0; l < n; ++l) sum += int(a[size_t(base) + l]);
            int rank = i % 32;  // blocks of 32
            EXPECT_EQ(int(r.out[size_t(i)]), sum * 64 + rank % int(n) * 8 + rank / int(n) % 8)
                << "tile " << n << ", thread " << i;
        }
    }
}

TEST(CooperativeGroups, WhatTheMachineCannotDoIsRefusedAtItsLine) {
    Diagnostic wide = firstError("  auto t = cg::tiled_partition<32>(block);\n  out[i] = t.thread_rank();\n");
    EXPECT_NE(wide.message.find("a tile is 1, 2 or 4 threads"), std::string::npos) << wide.format();
    Diagnostic dynamic = firstError("  auto t = cg::tiled_partition(block, 4);\n  out[i] = t.thread_rank();\n");
    EXPECT_EQ(dynamic.line, 6);
    EXPECT_NE(dynamic.message.find("give the tile size as a constant"), std::string::npos) << dynamic.format();
    Diagnostic grid = firstError("  cg::this_grid().sync();\n");
    EXPECT_EQ(grid.line, 6);
    EXPECT_NE(grid.message.find("grid-wide sync is not available"), std::string::npos) << grid.format();
}
