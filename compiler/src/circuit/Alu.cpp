#include "qgpu/compiler/circuit/Alu.h"

#include <map>
#include <stdexcept>

namespace qgpu::circuit {

const std::vector<Opcode>& aluOpcodes() {
    static const std::vector<Opcode> ops = {
        Opcode::Add,    Opcode::Sub,    Opcode::Mul,    Opcode::Shl,    Opcode::Shr,   Opcode::Sra,   Opcode::And,
        Opcode::Or,     Opcode::Xor,    Opcode::Not,    Opcode::Min,    Opcode::Max,   Opcode::MinU,  Opcode::MaxU,
        Opcode::Mov,    Opcode::SetEq,  Opcode::SetNe,  Opcode::SetLt,  Opcode::SetLe, Opcode::SetGt, Opcode::SetGe,
        Opcode::SetLtU, Opcode::SetLeU, Opcode::SetGtU, Opcode::SetGeU, Opcode::Sel};
    return ops;
}

namespace {

using Value = Scheduler::Value;

// How the last layer forms bit i of an opcode's result: a threshold over truths that is true exactly
// when the opcode's bit is set and the result bit is 1 (several thresholds flip and unflip for XOR).
struct Flip {
    std::vector<std::pair<int, int>> terms;
    int theta;
    float down;  // -2 sets the output bit, +2 clears it again
};

// add, sub, mul, the shifts, min and max: one word each, by opcode.
std::map<Opcode, Value> wordResults(Scheduler& s, Value a, Value b, const std::string& name) {
    using Shift = Circuit::Shift;
    return {
        {Opcode::Add, s.add(a, b, name + ".add")},
        {Opcode::Sub, s.subtract(a, b, name + ".sub")},
        {Opcode::Mul, s.multiply(a, b, name + ".mul")},
        {Opcode::Shl, s.shift(Shift::Left, a, b, name + ".shl")},
        {Opcode::Shr, s.shift(Shift::RightLogical, a, b, name + ".shr")},
        {Opcode::Sra, s.shift(Shift::RightArithmetic, a, b, name + ".sra")},
        {Opcode::Min, s.minMax(a, b, false, true, name + ".min")},
        {Opcode::Max, s.minMax(a, b, true, true, name + ".max")},
        {Opcode::MinU, s.minMax(a, b, false, false, name + ".minu")},
        {Opcode::MaxU, s.minMax(a, b, true, false, name + ".maxu")},
    };
}

// The flips of bit i of a bitwise, mov, sel or compare opcode's result (x, y: bit i of a and b; nz: c != 0;
// compare: each compare opcode's bit).
void bitFlips(std::vector<Flip>& flips, Opcode op, int i, int bit, int x, int y, int nz,
              std::map<Opcode, int>& compare) {
    switch (op) {
        case Opcode::And: flips.push_back({{{bit, 1}, {x, 1}, {y, 1}}, -3, -2}); break;
        case Opcode::Or: flips.push_back({{{bit, 2}, {x, 1}, {y, 1}}, -3, -2}); break;
        case Opcode::Xor:  // or, then undo where both are set
            flips.push_back({{{bit, 2}, {x, 1}, {y, 1}}, -3, -2});
            flips.push_back({{{bit, 1}, {x, 1}, {y, 1}}, -3, 2});
            break;
        case Opcode::Not: flips.push_back({{{bit, 1}, {x, -1}}, -1, -2}); break;
        case Opcode::Mov: flips.push_back({{{bit, 1}, {y, 1}}, -2, -2}); break;
        case Opcode::Sel:
            flips.push_back({{{bit, 1}, {nz, 1}, {x, 1}}, -3, -2});
            flips.push_back({{{bit, 1}, {nz, -1}, {y, 1}}, -2, -2});
            break;
        case Opcode::SetEq:
        case Opcode::SetGe:
        case Opcode::SetLe:
        case Opcode::SetGeU:
        case Opcode::SetLeU:  // the compare's bit itself
            if (i == 0) flips.push_back({{{bit, 1}, {compare[op], 1}}, -2, -2});
            break;
        case Opcode::SetNe:
        case Opcode::SetLt:
        case Opcode::SetGt:
        case Opcode::SetLtU:
        case Opcode::SetGtU:  // its negation
            if (i == 0) flips.push_back({{{bit, 1}, {compare[op], -1}}, -1, -2});
            break;
        default: break;
    }
}

// The last layer: the result of the one opcode whose bit is true. `in` is a, b, c != 0, the compares, the
// word results (in `words`' order) and the opcode bits (in `ops`' order).
void selectResult(Circuit& k, int first, const Scheduler::Dims& in, const Scheduler::Dims& out,
                  const std::map<Opcode, Value>& words, const std::vector<Opcode>& ops) {
    const auto &av = in[0], &bv = in[1];
    int nz = in[2][0];
    std::map<Opcode, int> compare = {{Opcode::SetEq, in[3][0]},  {Opcode::SetGe, in[4][0]},  {Opcode::SetLe, in[5][0]},
                                     {Opcode::SetGeU, in[6][0]}, {Opcode::SetLeU, in[7][0]}, {Opcode::SetNe, in[3][0]},
                                     {Opcode::SetLt, in[4][0]},  {Opcode::SetGt, in[5][0]},  {Opcode::SetLtU, in[6][0]},
                                     {Opcode::SetGtU, in[7][0]}};
    std::map<Opcode, const std::vector<int>*> wordDims;
    size_t w = 8;
    for (const auto& [op, v] : words) wordDims[op] = &in[w++];
    for (size_t k2 = 0; k2 < ops.size(); ++k2) {
        Opcode op = ops[k2];
        int bit = in[w + k2][0];
        for (int i = 0; i < 32; ++i) {
            std::vector<Flip> flips;
            int x = av[size_t(i)], y = bv[size_t(i)];
            if (wordDims.count(op)) flips.push_back({{{bit, 1}, {(*wordDims[op])[size_t(i)], 1}}, -2, -2});
            bitFlips(flips, op, i, bit, x, y, nz, compare);
            for (const Flip& f : flips) k.step(first, k.truthSum(f.terms, f.theta), {{out[0][size_t(i)], f.down}});
        }
    }
}

}  // namespace

Value buildAlu(Scheduler& s, Value a, Value b, Value c, const std::vector<Value>& opBits, const std::string& name) {
    const auto& ops = aluOpcodes();
    if (opBits.size() != ops.size()) throw std::invalid_argument("buildAlu takes one bit per ALU opcode");
    // Whole-word results, computed side by side.
    std::map<Opcode, Value> words = wordResults(s, a, b, name);
    Value eq = s.equal(a, b, name + ".eq");
    Value geAB = s.greaterOrEqual(a, b, true, name + ".ge_ab"), geBA = s.greaterOrEqual(b, a, true, name + ".ge_ba");
    Value geuAB = s.greaterOrEqual(a, b, false, name + ".geu_ab"),
          geuBA = s.greaterOrEqual(b, a, false, name + ".geu_ba");
    Value nonZero =
        s.gadget(name + ".c_nonzero", 1, {c}, {1}, [](Circuit& k, int first, const auto& in, const auto& out) {
            std::vector<std::pair<int, int>> any;
            for (int d : in[0]) any.push_back({d, 1});
            k.threshold(first, any, -1, out[0][0]);
        })[0];

    std::vector<Value> inputs = {a, b, nonZero, eq, geAB, geBA, geuAB, geuBA};
    for (const auto& [op, v] : words) inputs.push_back(v);
    inputs.insert(inputs.end(), opBits.begin(), opBits.end());
    auto select = [words, ops](Circuit& k, int first, const Scheduler::Dims& in, const Scheduler::Dims& out) {
        selectResult(k, first, in, out, words, ops);
    };
    return s.gadget(name, 1, inputs, {32}, select)[0];
}

}  // namespace qgpu::circuit
