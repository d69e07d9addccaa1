#include "qgpu/compiler/circuit/Costs.h"

#include <functional>

#include "qgpu/compiler/circuit/Alu.h"
#include "qgpu/compiler/circuit/Circuit.h"
#include "qgpu/compiler/circuit/Scheduler.h"

namespace qgpu::circuit {

namespace {

using Build =
    std::function<void(Circuit&, const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& out)>;

// Builds one primitive over `inputs` words of `width` bits into `outputWidth` output bits.
PrimitiveCost measure(const std::string& name, int width, int inputs, int outputWidth, const Build& build) {
    Geometry g;
    g.hiddenSize = 1 << 14;
    g.intermediateSize = 1 << 16;
    g.linearNumKeyHeads = g.linearNumValueHeads = 1;
    g.linearKeyHeadDim = g.linearValueHeadDim = 128;
    Circuit c(g);
    std::vector<std::vector<int>> in(2);
    for (int w = 0; w < inputs; ++w)
        for (int i = 0; i < width; ++i) in[size_t(w)].push_back(c.addFeature("in" + std::to_string(w * 100 + i)));
    std::vector<int> out;
    for (int i = 0; i < outputWidth; ++i) out.push_back(c.addFeature("out" + std::to_string(i)));
    int before = c.dimsUsed();
    build(c, in[0], in[1], out);
    PrimitiveCost cost{name, c.layerCount(), {}, inputs * width, outputWidth, c.dimsUsed() - before, 0};
    for (int l = 0; l < c.layerCount(); ++l) {
        cost.neuronsPerLayer.push_back(int(c.layer(l).mlp.size()));
        cost.heads += int(c.layer(l).ports.size());
    }
    return cost;
}

// The whole ALU, scheduled at Qwen3.5-2B's intermediate size (6144 neurons per layer).
PrimitiveCost aluCost() {
    Geometry g;
    g.hiddenSize = 1 << 14;
    g.intermediateSize = 6144;
    Scheduler s(g);
    auto a = s.input("a"), b = s.input("b"), c = s.input("c");
    std::vector<Scheduler::Value> ops;
    for (size_t i = 0; i < aluOpcodes().size(); ++i) ops.push_back(s.input("op" + std::to_string(i), 1));
    s.keep(buildAlu(s, a, b, c, ops, "alu"));
    const Circuit& circuit = s.build();
    int inputs = 96 + int(ops.size());
    PrimitiveCost cost{"ALU: all " + std::to_string(ops.size()) + " ALU/compare/sel opcodes, selected by a one-hot",
                       circuit.layerCount(),
                       {},
                       inputs,
                       32,
                       circuit.dimsUsed() - Circuit::kConstantDims - inputs - 32,
                       0};
    for (int l = 0; l < circuit.layerCount(); ++l) cost.neuronsPerLayer.push_back(int(circuit.layer(l).mlp.size()));
    return cost;
}

}  // namespace

std::vector<PrimitiveCost> primitiveCosts() {
    using V = const std::vector<int>&;
    auto layer = [](Circuit& c) { return c.layerCount() ? 0 : c.addLayer(); };
    std::vector<PrimitiveCost> costs;
    costs.push_back(
        measure("AND / OR / NOT", 1, 2, 1, [&](Circuit& c, V a, V b, V o) { c.andGate(layer(c), a[0], b[0], o[0]); }));
    costs.push_back(measure("XOR", 1, 2, 1, [&](Circuit& c, V a, V b, V o) { c.xorGate(layer(c), a[0], b[0], o[0]); }));
    costs.push_back(
        measure("decode 5 bits -> 32 one-hot", 5, 1, 32, [&](Circuit& c, V a, V, V o) { c.decode(layer(c), a, o); }));
    costs.push_back(
        measure("add32 / sub32", 32, 2, 32, [](Circuit& c, V a, V b, V o) { c.add32(0, a, b, o, false, "add"); }));
    costs.push_back(measure("a >= b (signed or unsigned)", 32, 2, 1,
                            [](Circuit& c, V a, V b, V o) { c.greaterOrEqual32(0, a, b, o[0], true, "ge"); }));
    costs.push_back(measure("a == b", 32, 2, 1, [](Circuit& c, V a, V b, V o) { c.equal32(0, a, b, o[0], "eq"); }));
    costs.push_back(measure("select c ? x : y (32 bits)", 32, 2, 32,
                            [&](Circuit& c, V a, V b, V o) { c.select(layer(c), a[0], a, b, o); }));
    costs.push_back(measure("min / max (signed or unsigned)", 32, 2, 32,
                            [](Circuit& c, V a, V b, V o) { c.minMax32(0, a, b, o, true, true, "max"); }));
    costs.push_back(measure("shift left / right by a variable amount", 32, 2, 32, [](Circuit& c, V a, V b, V o) {
        c.shift32(0, Circuit::Shift::RightArithmetic, a, b, o, "sh");
    }));
    costs.push_back(measure("multiply32 (low word)", 32, 2, 32,
                            [](Circuit& c, V a, V b, V o) { c.multiply32(0, a, b, o, "mul"); }));
    costs.push_back(measure("memory port: 128 rows x 32 bits", 32, 1, 0, [&](Circuit& c, V a, V, V) {
        MemoryPort port;
        port.name = "mem";
        port.dataBits = a;
        for (int r = 0; r < 128; ++r) port.writeRows.push_back(c.addFeature("w" + std::to_string(r)));
        for (int r = 0; r < 128; ++r) port.readRows.push_back(c.addFeature("r" + std::to_string(r)));
        for (int i = 0; i < 32; ++i) port.outBits.push_back(c.addReadBit("o" + std::to_string(i)));
        c.memoryPort(layer(c), port);
    }));
    costs.push_back(aluCost());
    return costs;
}

}  // namespace qgpu::circuit
