// The ALU circuit against the reference interpreter's ALU (core/Alu.h): every opcode on edge and random
// operands, all tokens in one prefill through Qwen35Model.
#include <gtest/gtest.h>

#include <random>

#include "CircuitTestSupport.h"
#include "qgpu/compiler/circuit/Alu.h"
#include "qgpu/core/Alu.h"

using namespace qgpu;
using namespace qgpu::testing;
using circuit::Circuit;
using circuit::Scheduler;

TEST(CircuitAlu, EveryOpcodeMatchesTheInterpreter) {
    circuit::Geometry g;
    g.hiddenSize = 1024;
    g.intermediateSize = 6144;  // Qwen3.5-2B's
    Scheduler s(g);
    auto a = s.input("a"), b = s.input("b"), c = s.input("c");
    std::vector<Scheduler::Value> opBits;
    for (Opcode op : circuit::aluOpcodes()) opBits.push_back(s.input(std::string(opcodeInfo(op).mnemonic), 1));
    auto out = circuit::buildAlu(s, a, b, c, opBits, "alu");
    s.keep(out);
    const Circuit& circuit = s.build();
    EXPECT_LE(circuit.layerCount(), 5);

    struct Case {
        size_t op;
        uint32_t a, b, c;
    };
    std::vector<Case> cases;
    std::mt19937 rng(9);
    const uint32_t edges[] = {0, 1, 31, 32, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu};
    for (size_t op = 0; op < opBits.size(); ++op) {
        for (uint32_t x : edges)
            for (uint32_t y : {0u, 1u, 31u, 32u, 0xFFFFFFFFu}) cases.push_back({op, x, y, x});
        for (int k = 0; k < 6; ++k) {
            uint32_t x = uint32_t(rng()), y = rng() % 2 ? uint32_t(rng()) : uint32_t(rng() % 40);
            cases.push_back({op, x, k % 3 == 0 ? x : y, k % 2 ? 0u : uint32_t(rng())});
        }
    }
    cases.push_back({opBits.size(), 5, 7, 1});  // no opcode: 0
    std::vector<std::vector<float>> rows;
    for (const Case& k : cases) {
        std::vector<int> trueDims;
        for (int i = 0; i < 32; ++i) {
            if (k.a >> i & 1) trueDims.push_back(s.dims(a)[size_t(i)]);
            if (k.b >> i & 1) trueDims.push_back(s.dims(b)[size_t(i)]);
            if (k.c >> i & 1) trueDims.push_back(s.dims(c)[size_t(i)]);
        }
        if (k.op < opBits.size()) trueDims.push_back(s.dims(opBits[k.op])[0]);
        rows.push_back(circuit.tokenEmbedding(trueDims));
    }
    auto res = runPrefill(circuit, rows);
    for (size_t i = 0; i < cases.size(); ++i) {
        const Case& k = cases[i];
        uint32_t expect = 0;
        std::string name = "none";
        if (k.op < opBits.size()) {
            Opcode op = circuit::aluOpcodes()[k.op];
            name = opcodeInfo(op).mnemonic;
            expect = op == Opcode::Sel ? (k.c != 0 ? k.a : k.b) : *aluResult(op, k.a, k.b);
        }
        EXPECT_EQ(word(res[i], s.dims(out)), expect) << name << " " << k.a << ", " << k.b << ", c=" << k.c;
    }
}
