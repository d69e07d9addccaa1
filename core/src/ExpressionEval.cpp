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

ElementType wordType(bool isFloat) { return isFloat ? ElementType::F32 : ElementType::I32; }
KernelArg array(const std::string& name, const std::vector<int32_t>& values, bool isFloat) {
    return {name, true, {values.begin(), values.end()}, wordType(isFloat)};
}
KernelArg array(const std::string& name, const Value& v) { return array(name, v.values, v.isFloat); }
KernelArg zeros(const std::string& name, int n, bool isFloat) {
    return {name, true, std::vector<int64_t>(size_t(n)), wordType(isFloat)};
}
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

// The ready-made kernel for an operation on integers (`op_<base>`) or floats (`op_f_<base>`).
std::string kernelFor(const std::string& base, bool isFloat) { return (isFloat ? "op_f_" : "op_") + base; }

constexpr int32_t kFloatMinusOne = int32_t(0xbf800000u);  // -1.0f

}  // namespace

KernelLaunch planLaunch(const Node& node, const std::vector<Value>& in) {
    const Value& a = in.at(0);
    bool fp = a.isFloat;
    int n = count(node.shape);
    switch (node.op) {
        case Op::Add:
        case Op::Sub:
        case Op::Mul: {
            const Value& b = in.at(1);
            bool aScalar = a.shape.empty() && !b.shape.empty(), bScalar = b.shape.empty() && !a.shape.empty();
            // Integer sums and products with a scalar side have kernels of their own; the float kernels
            // are element-wise only.
            if (!fp && node.op != Op::Sub && (aScalar || bScalar)) {
                const Value& arr = aScalar ? b : a;
                int32_t s = (aScalar ? a : b).values.at(0);
                std::string kernel = node.op == Op::Add ? "op_scalar_add" : "op_scalar_mul";
                return perElement(kernel, {array("a", arr), scalar("s", s), zeros("out", n, fp)}, n);
            }
            // Equal shapes, or a scalar side laid out as an array of n.
            std::vector<int32_t> av = aScalar ? fill(a.values.at(0), n) : a.values;
            std::vector<int32_t> bv = bScalar ? fill(b.values.at(0), n) : b.values;
            std::string kernel = node.op == Op::Add ? "ew_add" : node.op == Op::Sub ? "ew_sub" : "ew_mul";
            return perElement(kernelFor(kernel, fp), {array("a", av, fp), array("b", bv, fp), zeros("out", n, fp)}, n);
        }
        case Op::Negate:
            if (fp)  // -x as x * -1.0: exact, and -0.0 for 0
                return perElement("op_f_ew_mul",
                                  {array("a", a), array("b", fill(kFloatMinusOne, n), true), zeros("out", n, true)}, n);
            return perElement("op_scalar_mul", {array("a", a), scalar("s", -1), zeros("out", n, false)}, n);
        case Op::Sum: {
            int m = count(a.shape);
            return perElement(kernelFor("sum", fp), {array("a", a), zeros("out", 1, fp)}, m);
        }
        case Op::Max: {
            int m = count(a.shape);
            return oneDimensional(kernelFor("max", fp), {array("a", a), zeros("out", 1, fp), scalar("n", m)}, m);
        }
        case Op::Dot:
        case Op::MatMul: {
            const Value& b = in.at(1);
            if (a.shape.size() == 1 && b.shape.size() == 1) {
                int m = a.shape[0];
                return perElement(kernelFor("dot", fp), {array("a", a), array("b", b), zeros("out", 1, fp)}, m);
            }
            if (a.shape.size() == 2 && b.shape.size() == 1 && !fp) {
                int rows = a.shape[0], cols = a.shape[1];
                return oneDimensional(
                    "op_matvec",
                    {array("m", a), array("v", b), zeros("out", rows, fp), scalar("rows", rows), scalar("cols", cols)},
                    rows);
            }
            // A float matrix-vector product is a matrix product with one column (a float row loop over a
            // grid-stride loop needs more registers than the machine has).
            int rows = a.shape.size() == 2 ? a.shape[0] : 1, inner = b.shape[0];
            int cols = b.shape.size() == 2 ? b.shape[1] : 1;
            KernelLaunch k{kernelFor("matmul", fp), {}, "out"};
            k.launch.args = {array("a", a),        array("b", b),          zeros("out", rows * cols, fp),
                             scalar("rows", rows), scalar("inner", inner), scalar("cols", cols)};
            coverTwoDimensional(k.launch, rows, cols);
            return k;
        }
        case Op::Transpose: {  // moves words: the integer kernel moves float bits unchanged
            int rows = a.shape[0], cols = a.shape[1];
            KernelLaunch k{"op_transpose", {}, "out"};
            k.launch.args = {array("in", a.values, false), zeros("out", rows * cols, false), scalar("rows", rows),
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
    Value result{node.shape, {}, node.isFloat};
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
