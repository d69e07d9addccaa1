// The expression language's evaluator: each operation is one launch of a ready-made kernel
// (resources/kernels/op_*.cu), run by a KernelRunner. The host only lays out arguments and reads results.
#include <algorithm>
#include <string>
#include <vector>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Expression.h"

namespace qgpu::expr {

namespace {

int count(const std::vector<int>& shape) {
    int n = 1;
    for (int d : shape) n *= d;
    return n;
}

KernelArg array(const std::string& name, const std::vector<int32_t>& values) { return {name, true, values}; }
KernelArg zeros(const std::string& name, int n) { return {name, true, std::vector<int32_t>(size_t(n))}; }
KernelArg scalar(const std::string& name, int32_t v) { return {name, false, {v}}; }

// A 1-D launch for the grid-stride kernels: one thread block, whole warps, at most 32 threads.
KernelLaunch oneDimensional(const std::string& kernel, std::vector<KernelArg> args, int n) {
    MachineSpec spec = MachineSpec::standard();
    int lanes = spec.lanesPerWarp;
    KernelLaunch k{kernel, {}, "out"};
    k.launch.block.x = std::min((n + lanes - 1) / lanes * lanes, spec.maxThreadsPerBlock);
    k.launch.args = std::move(args);
    return k;
}

// One element per thread: n elements that fit one thread block run `kernel`_small (no loop and no n) on a
// block of exactly n threads; more run the grid-stride `kernel`, told n.
KernelLaunch perElement(const std::string& kernel, std::vector<KernelArg> args, int n) {
    if (n <= MachineSpec::standard().maxThreadsPerBlock) {
        KernelLaunch k{kernel + "_small", {}, "out"};
        k.launch.block.x = n;
        k.launch.args = std::move(args);
        return k;
    }
    args.push_back(scalar("n", n));
    return oneDimensional(kernel, std::move(args), n);
}

// A 2-D launch covering rows x cols with one thread per element (x over columns): the block shape with the
// fewest warps, then the fewest threads.
void coverTwoDimensional(LaunchSpec& launch, int rows, int cols) {
    MachineSpec spec = MachineSpec::standard();
    auto ceilDiv = [](int a, int b) { return (a + b - 1) / b; };
    long best = -1;
    for (int bx = 1; bx <= std::min(cols, spec.maxThreadsPerBlock); ++bx)
        for (int by = 1; by <= std::min(rows, spec.maxThreadsPerBlock / bx); ++by) {
            int gx = ceilDiv(cols, bx), gy = ceilDiv(rows, by);
            long warps = long(gx) * gy * ceilDiv(bx * by, spec.lanesPerWarp);
            long score = warps * 100000 + long(gx) * gy * bx * by;
            if (best < 0 || score < best) {
                best = score;
                launch.block = Dim3{bx, by, 1};
                launch.grid = Dim3{gx, gy, 1};
            }
        }
}

std::vector<int32_t> fill(int32_t v, int n) { return std::vector<int32_t>(size_t(n), v); }

}  // namespace

KernelLaunch planLaunch(const Node& node, const std::vector<Value>& in) {
    const Value& a = in.at(0);
    int n = count(node.shape);
    switch (node.op) {
        case Op::Add:
        case Op::Sub:
        case Op::Mul: {
            const Value& b = in.at(1);
            bool aScalar = a.shape.empty() && !b.shape.empty(), bScalar = b.shape.empty() && !a.shape.empty();
            if (node.op != Op::Sub && (aScalar || bScalar)) {
                const Value& arr = aScalar ? b : a;
                int32_t s = (aScalar ? a : b).values.at(0);
                std::string kernel = node.op == Op::Add ? "op_scalar_add" : "op_scalar_mul";
                return perElement(kernel, {array("a", arr.values), scalar("s", s), zeros("out", n)}, n);
            }
            // Equal shapes, or a difference with a scalar side: the scalar is laid out as an array of n.
            std::vector<int32_t> av = aScalar ? fill(a.values.at(0), n) : a.values;
            std::vector<int32_t> bv = bScalar ? fill(b.values.at(0), n) : b.values;
            std::string kernel = node.op == Op::Add ? "op_ew_add" : node.op == Op::Sub ? "op_ew_sub" : "op_ew_mul";
            return perElement(kernel, {array("a", av), array("b", bv), zeros("out", n)}, n);
        }
        case Op::Negate:
            return perElement("op_scalar_mul", {array("a", a.values), scalar("s", -1), zeros("out", n)}, n);
        case Op::Sum: {
            int m = count(a.shape);
            return perElement("op_sum", {array("a", a.values), zeros("out", 1)}, m);
        }
        case Op::Max: {
            int m = count(a.shape);
            return oneDimensional("op_max", {array("a", a.values), zeros("out", 1), scalar("n", m)}, m);
        }
        case Op::Dot:
        case Op::MatMul: {
            const Value& b = in.at(1);
            if (a.shape.size() == 1 && b.shape.size() == 1) {
                int m = a.shape[0];
                return perElement("op_dot", {array("a", a.values), array("b", b.values), zeros("out", 1)}, m);
            }
            if (a.shape.size() == 2 && b.shape.size() == 1) {
                int rows = a.shape[0], cols = a.shape[1];
                return oneDimensional("op_matvec",
                                      {array("m", a.values), array("v", b.values), zeros("out", rows),
                                       scalar("rows", rows), scalar("cols", cols)},
                                      rows);
            }
            int rows = a.shape.size() == 2 ? a.shape[0] : 1, inner = b.shape[0], cols = b.shape[1];
            KernelLaunch k{"op_matmul", {}, "out"};
            k.launch.args = {array("a", a.values), array("b", b.values),   zeros("out", rows * cols),
                             scalar("rows", rows), scalar("inner", inner), scalar("cols", cols)};
            coverTwoDimensional(k.launch, rows, cols);
            return k;
        }
        case Op::Transpose: {
            int rows = a.shape[0], cols = a.shape[1];
            KernelLaunch k{"op_transpose", {}, "out"};
            k.launch.args = {array("in", a.values), zeros("out", rows * cols), scalar("rows", rows),
                             scalar("cols", cols)};
            coverTwoDimensional(k.launch, rows, cols);
            return k;
        }
        case Op::Literal: break;
    }
    throw DiagnosticError(Diagnostic{"<expression>", 1, node.column, "a literal runs no kernel"});
}

namespace {

Value run(const Node& node, KernelRunner& runner, std::vector<LaunchRecord>& log) {
    if (node.op == Op::Literal) return node.literal;
    std::vector<Value> in;
    for (const auto& o : node.operands) in.push_back(run(*o, runner, log));
    KernelLaunch k = planLaunch(node, in);
    MemoryMap map = validateLaunch(k.launch, MachineSpec::standard());
    KernelOutcome outcome = runner.run(k);
    const ArrayPlacement* out = map.find(k.output);
    Value result{node.shape, {}};
    for (int i = 0; i < count(node.shape); ++i)
        result.values.push_back(int32_t(outcome.global.at(size_t(out->base + i))));
    log.push_back({node.source, std::move(k), std::move(outcome), result});
    return result;
}

}  // namespace

Evaluation evaluate(const Node& root, KernelRunner& runner) {
    Evaluation e;
    e.value = run(root, runner, e.launches);
    return e;
}

Evaluation evaluate(const std::string& text, KernelRunner& runner) { return evaluate(*parse(text), runner); }

}  // namespace qgpu::expr
