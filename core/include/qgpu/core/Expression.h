// The normal-mode expression language: integer or fp32 arrays and the operations the ready-made kernels
// in resources/kernels/op_*.cu compute, e.g. `[1, 2, 3] @ [4, 5, 6]` or `sum([[1, 2], [3, 4]] @ [5, 6])`.
// The grammar, the shapes and the kernel each operation runs: docs/expressions.md.
//
// Parsing checks every shape before anything runs; evaluation runs each operation as one launch through a
// KernelRunner (the interpreter or the GPU inside the model). The host computes nothing: literals go in as
// kernel arguments, results come out of the launch's memory.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "qgpu/core/Launch.h"

namespace qgpu::expr {

// A scalar (shape {}), vector ({n}) or matrix ({rows, cols}) of 32-bit words, row-major: integers, or the
// bits of IEEE-754 binary32 floats.
struct Value {
    std::vector<int> shape;
    std::vector<int32_t> values;
    bool isFloat = false;

    bool operator==(const Value& o) const { return shape == o.shape && values == o.values && isFloat == o.isFloat; }
};
std::string formatValue(const Value& v);                 // 32, [1.5, 2, 3], [[1, 2], [3, 4]]
std::string formatShape(const std::vector<int>& shape);  // scalar, vector of 3, 2x3 matrix

enum class Op { Literal, Add, Sub, Mul, MatMul, Negate, Dot, Sum, Max, Transpose };

struct Node {
    Op op = Op::Literal;
    int column = 1;      // 1-based column of the operator, function name or literal
    std::string source;  // the text this node was parsed from, for messages and launch names
    Value literal;       // Op::Literal only
    std::vector<std::unique_ptr<Node>> operands;
    std::vector<int> shape;  // checked result shape
    bool isFloat = false;    // checked result type (an operation's operands have its type)
};

// Parses and shape-checks `text`. Throws DiagnosticError naming the column (file `<expression>`, line 1),
// what was expected and, for shape errors, both operands' shapes.
std::unique_ptr<Node> parse(const std::string& text);
// The expression and a caret under `column`, to print below an error: "  [1, 2] +\n           ^".
std::string pointAt(const std::string& text, int column);

// One ready-made kernel launch: resources/kernels/<kernel>.cu with its arguments, result in `output`.
struct KernelLaunch {
    std::string kernel;
    LaunchSpec launch;
    std::string output;
};

// What a backend reports for one launch.
struct KernelOutcome {
    std::vector<uint32_t> global;  // global memory after the launch
    size_t tokens = 0;             // tokens fed and written (0 on the interpreter)
    size_t steps = 0;              // warp steps (EXEC records)
    double seconds = 0;
};

class KernelRunner {
public:
    virtual ~KernelRunner() = default;
    virtual KernelOutcome run(const KernelLaunch& launch) = 0;
};

// One operation of an evaluated expression.
struct LaunchRecord {
    std::string source;  // the sub-expression, e.g. `[1, 2] @ [3, 4]`
    KernelLaunch launch;
    KernelOutcome outcome;
    Value result;
};

struct Evaluation {
    Value value;
    std::vector<LaunchRecord> launches;  // in the order they ran
};

// The launch that computes `node` from its operands' values (exposed for tests and the debugger).
KernelLaunch planLaunch(const Node& node, const std::vector<Value>& operands);

// Runs every operation of the tree, innermost first; a literal alone runs nothing.
Evaluation evaluate(const Node& root, KernelRunner& runner);
Evaluation evaluate(const std::string& text, KernelRunner& runner);

}  // namespace qgpu::expr
