// Circuits emitted at Qwen3.5-2B geometry (hidden 2048, 16 + 16 heads of 128, intermediate 6144) as a
// bf16 checkpoint with a stock config, loaded and run by Qwen35Model. Label `slow`: the weights are
// about half a gigabyte.
#include <gtest/gtest.h>

#include <random>

#include "../CircuitTestSupport.h"
#include "qgpu/compiler/circuit/Scheduler.h"
#include "qgpu/runtime/Qwen35Config.h"

using namespace qgpu;
using namespace qgpu::testing;
using circuit::Circuit;

TEST(Circuit2bGeometry, ArithmeticAndAMemoryPortAreExactInABfloat16Checkpoint) {
    Qwen35Config qwen = Qwen35Config::geometry2b();
    circuit::Geometry g{qwen.hiddenSize,          qwen.intermediateSize, qwen.linearNumKeyHeads,
                        qwen.linearNumValueHeads, qwen.linearKeyHeadDim, qwen.linearValueHeadDim,
                        qwen.convKernel};
    circuit::Scheduler s(g);
    auto a = s.input("a"), b = s.input("b");
    auto prod = s.multiply(a, b, "prod"), sum = s.add(a, b, "sum");
    auto ge = s.greaterOrEqual(prod, sum, false, "ge");
    s.keep(prod);
    s.keep(sum);
    s.keep(ge);
    auto row = s.input("row", 1);
    s.build();
    Circuit& c = s.circuit();
    circuit::MemoryPort port;
    port.name = "mem";
    port.head = 7;
    port.writeRows = port.readRows = {s.dims(row)[0]};
    port.dataBits = s.dims(a);
    for (int i = 0; i < 32; ++i) port.outBits.push_back(c.addReadBit("read" + std::to_string(i)));
    c.memoryPort(0, port);  // writes a into row 0 of head 7 when `row` is true, reading it back at once

    std::mt19937 rng(2);
    std::vector<std::pair<uint32_t, uint32_t>> cases = {{0xFFFFFFFFu, 0xFFFFFFFFu}, {3, 5}, {0x80000000u, 2}};
    while (cases.size() < 24) cases.push_back({uint32_t(rng()), uint32_t(rng())});
    auto rows = operandRows(c, s.dims(a), s.dims(b), cases);
    for (size_t k = 0; k < rows.size(); k += 2) rows[k][size_t(s.dims(row)[0])] = -1.f;  // every other writes
    auto res = run(c, rows, DType::BF16);
    uint32_t stored = 0;
    for (size_t k = 0; k < cases.size(); ++k) {
        auto [x, y] = cases[k];
        EXPECT_EQ(word(res[k], s.dims(prod)), x * y) << x << " * " << y;
        EXPECT_EQ(word(res[k], s.dims(sum)), x + y) << x << " + " << y;
        EXPECT_EQ(truth(res[k][size_t(s.dims(ge)[0])]), x * y >= x + y);
        if (k % 2 == 0) {
            stored = x;
            uint32_t read = 0;
            for (int i = 0; i < 32; ++i) read |= uint32_t(res[k][size_t(port.outBits[size_t(i)])] == 62.f) << i;
            EXPECT_EQ(read, stored) << "token " << k;
        }
    }
}
