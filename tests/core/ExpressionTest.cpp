// The expression language's parser, shape checks and launch plans (evaluation: tests/compiler).
#include <gtest/gtest.h>

#include <bit>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Expression.h"

using namespace qgpu;
using namespace qgpu::expr;

namespace {

// The error `text` gives, as "COLUMN: message".
std::string errorOf(const std::string& text) {
    try {
        parse(text);
    } catch (const DiagnosticError& e) {
        const Diagnostic& d = e.diagnostics().front();
        EXPECT_EQ(d.file, "<expression>");
        EXPECT_EQ(d.line, 1);
        return std::to_string(d.column) + ": " + d.message;
    }
    return "no error";
}

void expectError(const std::string& text, int column, const std::string& part) {
    std::string e = errorOf(text);
    std::string shown = text.size() > 60 ? text.substr(0, 60) + "..." : text;
    EXPECT_EQ(e.rfind(std::to_string(column) + ": ", 0), 0u) << shown << " -> " << e;
    EXPECT_NE(e.find(part), std::string::npos) << shown << " -> " << e;
}

}  // namespace

TEST(Expression, ParsesLiteralsWithTheirShapes) {
    EXPECT_EQ(parse("42")->literal, (Value{{}, {42}}));
    EXPECT_EQ(parse("-2147483648")->literal, (Value{{}, {INT32_MIN}}));
    EXPECT_EQ(parse(" [1, -2,3 ] ")->literal, (Value{{3}, {1, -2, 3}}));
    EXPECT_EQ(parse("[[1, 2], [3, 4], [5, 6]]")->literal, (Value{{3, 2}, {1, 2, 3, 4, 5, 6}}));
}

TEST(Expression, OperatorsBindLikeNumpy) {
    // * and @ bind tighter than + and -, all left to right; unary minus and .T tighter still.
    auto n = parse("1 + 2 * 3 - 4");
    EXPECT_EQ(n->op, Op::Sub);
    EXPECT_EQ(n->operands[0]->op, Op::Add);
    EXPECT_EQ(n->operands[0]->operands[1]->op, Op::Mul);
    EXPECT_EQ(n->operands[0]->operands[1]->source, "2 * 3");
    auto m = parse("-[[1, 2]].T @ [1]");
    EXPECT_EQ(m->op, Op::MatMul);
    EXPECT_EQ(m->operands[0]->op, Op::Negate);
    EXPECT_EQ(m->operands[0]->operands[0]->op, Op::Transpose);
    EXPECT_EQ(m->shape, (std::vector<int>{2}));
    EXPECT_EQ(parse("(1 + 2) * 3")->op, Op::Mul);
    EXPECT_EQ(parse("(1 + 2) * 3")->source, "(1 + 2) * 3");
}

TEST(Expression, ShapesFollowTheOperations) {
    auto shape = [](const std::string& t) { return parse(t)->shape; };
    using S = std::vector<int>;
    EXPECT_EQ(shape("[1, 2, 3] @ [4, 5, 6]"), S{});
    EXPECT_EQ(shape("dot([1, 2], [3, 4])"), S{});
    EXPECT_EQ(shape("[[1, 2, 3], [4, 5, 6]] @ [1, 2, 3]"), S{2});
    EXPECT_EQ(shape("[1, 2] @ [[1, 2, 3], [4, 5, 6]]"), S{3});
    EXPECT_EQ(shape("[[1, 2, 3], [4, 5, 6]] @ [[1], [2], [3]]"), (S{2, 1}));
    EXPECT_EQ(shape("transpose([[1, 2, 3], [4, 5, 6]])"), (S{3, 2}));
    EXPECT_EQ(shape("2 * [[1, 2], [3, 4]] - 1"), (S{2, 2}));
    EXPECT_EQ(shape("sum([[1, 2], [3, 4]]) + max([5])"), S{});
}

TEST(Expression, SyntaxErrorsNameTheColumnAndWhatWasExpected) {
    expectError("", 1, "empty expression");
    expectError("[1, 2", 6, "expected ',' or ']'");
    expectError("[1, 2,]", 7, "expected a number");
    expectError("[1 2]", 4, "expected ',' or ']'");
    expectError("[]", 2, "at least one element");
    expectError("(1 + 2", 7, "expected ')' to close the '('");
    expectError("1 +", 4, "found the end of the expression");
    expectError("[1, 2] [3]", 8, "expected an operator");
    expectError("1e * [2]", 2, "expected the exponent's digits after '1e'");
    expectError("[1.5e+]", 5, "exponent's digits");
    expectError("[1, 2] / 2", 8, "unexpected character '/'");
    expectError("mean([1, 2])", 1, "unknown function 'mean'");
    expectError("dot([1, 2])", 11, "expected ','");
    expectError("sum([1], [2])", 8, "sum takes 1 argument");
    expectError("[[1, 2], [3]]", 10, "row 2 has 1 elements; row 1 has 2");
    expectError("[[1], 2]", 7, "expected '['");
    expectError("[[[1]]]", 3, "nest two deep");  // at the third bracket
    expectError("2147483648", 1, "does not fit a 32-bit integer");
    expectError("[[1, 2]].X", 10, "expected 'T'");
    expectError("[1, x]", 5, "expected a number");
}

namespace {
int32_t bitsOf(float f) { return std::bit_cast<int32_t>(f); }
}  // namespace

TEST(Expression, FloatLiteralsAreTheNearestBinary32) {
    EXPECT_EQ(parse("1.5")->literal, (Value{{}, {bitsOf(1.5f)}, true}));
    EXPECT_EQ(parse("-0.0")->literal, (Value{{}, {bitsOf(-0.0f)}, true}));
    EXPECT_EQ(parse("0.1")->literal.values[0], bitsOf(0.1f));                // rounded to nearest
    EXPECT_EQ(parse("16777217.0")->literal.values[0], bitsOf(16777216.0f));  // a tie, to even
    EXPECT_EQ(parse("1e-45")->literal.values[0], 1);                         // the smallest subnormal
    EXPECT_EQ(parse(".5")->literal.values[0], bitsOf(0.5f));
    EXPECT_EQ(parse("2.")->literal.values[0], bitsOf(2.0f));
    EXPECT_EQ(parse("6.02E23")->literal.values[0], bitsOf(6.02e23f));
    // One float element makes the whole array float, its whole numbers converted as C converts constants.
    EXPECT_EQ(parse("[1, 2.5, -3]")->literal, (Value{{3}, {bitsOf(1.0f), bitsOf(2.5f), bitsOf(-3.0f)}, true}));
    EXPECT_EQ(parse("[[1, 2], [3, 4e0]]")->literal.isFloat, true);
    EXPECT_FALSE(parse("[[1, 2], [3, 4]]")->literal.isFloat);
    expectError("1e39", 1, "does not fit a 32-bit float");
    expectError("[1, -3.5e38]", 6, "does not fit a 32-bit float");
    expectError("1e-50", 1, "too small for a 32-bit float");
    std::string zeros(400, '0');
    expectError("1" + zeros + "e-5", 1, "does not fit a 32-bit float");  // beyond double's range too
    expectError("0." + zeros + "1", 1, "too small for a 32-bit float");
    expectError("[1.5, 2" + zeros + "]", 7, "'200000000000000000000000 ... 000000000000000000000000' does not fit");
    // An integer -0 beside floats is 0, as in C; a float -0.0 keeps its sign.
    EXPECT_EQ(parse("[-0, 1.5]")->literal.values[0], bitsOf(0.0f));
    EXPECT_EQ(parse("[-0.0, 1]")->literal.values[0], bitsOf(-0.0f));
}

TEST(Expression, IntegerLiteralsBesideFloatsAreFloatsAndComputedIntegersAreRefused) {
    auto n = parse("[1.5, 2.5] * 2 + 1");
    EXPECT_TRUE(n->isFloat);
    EXPECT_EQ(n->operands[1]->literal, (Value{{}, {bitsOf(1.0f)}, true}));
    EXPECT_EQ(n->operands[0]->operands[1]->literal, (Value{{}, {bitsOf(2.0f)}, true}));
    EXPECT_TRUE(parse("sum([0.5]) + max([1.0])")->isFloat);
    EXPECT_TRUE(parse("-[[0.5, 1]].T @ [[1, 2]]")->isFloat);
    EXPECT_FALSE(parse("[1, 2] @ [3, 4]")->isFloat);
    expectError("sum([1, 2]) * 1.5", 13, "'*' mixes floats with the integers of 'sum([1, 2])'");
    expectError("[0.5, 1] @ ([1, 2] + [3, 4])", 10, "write that side's numbers as floats");
    // A float array reads any whole number as the nearest float.
    EXPECT_EQ(parse("[2147483648, 1.0]")->literal.values[0], bitsOf(2147483648.0f));
    expectError("2147483648", 1, "write 2147483648.0 to compute in floats");
    expectError("-2147483649", 2, "write -2147483649.0 to compute in floats");
}

TEST(Expression, ShapeErrorsNameBothShapes) {
    expectError("[1, 2, 3] + [1, 2]", 11, "got a vector of 3 and a vector of 2");
    expectError("[1, 2, 3] @ [1, 2]", 11, "last axis to match");
    expectError("[[1, 2], [3, 4]] @ [[1, 2, 3]]", 18, "got a 2x2 matrix and a 1x3 matrix");
    expectError("2 @ [1]", 3, "scale by a scalar with '*'");
    expectError("dot([[1]], [[1]])", 1, "two vectors of the same length");
    expectError("transpose([1, 2])", 1, "transpose needs a matrix, got a vector of 2");
    expectError("[1, 2].T", 7, "transpose needs a matrix");
}

TEST(Expression, OperationsTooBigForTheMachineAreRefusedBeforeRunning) {
    std::string big = "[0";
    for (int i = 1; i < 600; ++i) big += ", " + std::to_string(i);
    big += "]";
    int plus = int(big.size()) + 2;
    expectError(big + " + " + big, plus, "'[0, 1, 2, 3, 4, 5, 6, 7, ... 595, 596, 597, 598, 599]' is too big");
    expectError(big + " + " + big, plus, "1800 words");
    expectError(big + " - 1", plus, "1800 words");  // the scalar laid out as an array of 600
    std::string square = "[";  // 11 x 11: one thread per element needs 33 warps (11 blocks of 11 x 1)
    for (int r = 0; r < 11; ++r) square += std::string(r ? ", " : "") + "[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]";
    expectError("transpose(" + square + "])", 1, "33 warps");
    EXPECT_EQ(parse("sum(" + big + ")")->shape, std::vector<int>{});  // 601 words fit
}

TEST(Expression, LaunchPlansUseTheReadyMadeKernels) {
    auto plan = [](const std::string& t) {
        auto n = parse(t);
        std::vector<Value> in;
        for (const auto& o : n->operands) in.push_back(o->literal);
        return planLaunch(*n, in);
    };
    KernelLaunch dot = plan("[1, 2, 3] @ [4, 5, 6]");  // a thread per element: a block of exactly 3
    EXPECT_EQ(dot.kernel, "op_dot_small");
    EXPECT_EQ(dot.launch.block.x, 3);
    EXPECT_EQ(dot.launch.grid.count(), 1);
    ASSERT_EQ(dot.launch.args.size(), 3u);
    EXPECT_EQ(dot.launch.args[1].values, (std::vector<int64_t>{4, 5, 6}));
    std::string longer;  // 33 elements: past one block
    for (int i = 0; i < 33; ++i) longer += (i ? ", " : "[") + std::to_string(i);
    longer += "]";
    KernelLaunch strided = plan(longer + " @ " + longer);
    EXPECT_EQ(strided.kernel, "op_dot");
    EXPECT_EQ(strided.launch.block.x, 32);
    ASSERT_EQ(strided.launch.args.size(), 4u);
    EXPECT_EQ(strided.launch.args[3].values, (std::vector<int64_t>{33}));
    EXPECT_EQ(plan("sum(" + longer + ")").kernel, "op_sum");
    EXPECT_EQ(plan(longer + " + 1").kernel, "op_scalar_add");
    EXPECT_EQ(plan("[1, 2] * 3").kernel, "op_scalar_mul_small");
    EXPECT_EQ(plan("3 + [1, 2]").kernel, "op_scalar_add_small");
    EXPECT_EQ(plan("sum([[1, 2], [3, 4]])").launch.block.x, 4);
    KernelLaunch sub = plan("3 - [1, 2]");  // the scalar laid out as an array: the GPU subtracts
    EXPECT_EQ(sub.kernel, "op_ew_sub_small");
    EXPECT_EQ(sub.launch.args[0].values, (std::vector<int64_t>{3, 3}));
    EXPECT_EQ(plan("[[1, 2], [3, 4]] @ [1, 2]").kernel, "op_matvec");
    KernelLaunch mm = plan("[[1, 2], [3, 4]] @ [[1, 2], [3, 4]]");
    EXPECT_EQ(mm.kernel, "op_matmul");
    EXPECT_GE(mm.launch.grid.x * mm.launch.block.x, 2);
    EXPECT_GE(mm.launch.grid.y * mm.launch.block.y, 2);
    EXPECT_EQ(plan("[[1, 2, 3]].T").kernel, "op_transpose");
    // Floats run the op_f_ kernels with float arguments; a scalar side is laid out as an array.
    KernelLaunch fdot = plan("[1.5, 2] @ [3, 4]");
    EXPECT_EQ(fdot.kernel, "op_f_dot_small");
    EXPECT_TRUE(fdot.launch.args[0].isFloat() && fdot.launch.args[1].isFloat() && fdot.launch.args[2].isFloat());
    KernelLaunch fscale = plan("[0.5, 1.5] * 2");
    EXPECT_EQ(fscale.kernel, "op_f_ew_mul_small");
    EXPECT_EQ(fscale.launch.args[1].values, (std::vector<int64_t>{bitsOf(2.0f), bitsOf(2.0f)}));
    std::string longerFloats = longer.substr(0, longer.size() - 1) + ", 0.5]";
    EXPECT_EQ(plan("sum(" + longerFloats + ")").kernel, "op_f_sum");
    EXPECT_EQ(plan(longerFloats + " + 0.5").kernel, "op_f_ew_add");
    KernelLaunch fmv = plan("[[1.0, 2], [3, 4], [5, 6]] @ [1, 2]");  // a matrix product with one column
    EXPECT_EQ(fmv.kernel, "op_f_matmul");
    EXPECT_EQ(fmv.launch.args[5].values, (std::vector<int64_t>{1}));
    EXPECT_EQ(plan("[[1.0, 2], [3, 4]] @ [[1, 2], [3, 4]]").kernel, "op_f_matmul");
    EXPECT_EQ(plan("max([1.0])").kernel, "op_f_max");
    KernelLaunch fneg = plan("-[2.5]");  // -x as x * -1.0
    EXPECT_EQ(fneg.kernel, "op_f_ew_mul_small");
    EXPECT_EQ(fneg.launch.args[1].values, (std::vector<int64_t>{bitsOf(-1.0f)}));
    EXPECT_EQ(plan("[[1.0, 2]].T").kernel, "op_transpose");  // moves the bits
    EXPECT_EQ(plan("max([1])").kernel, "op_max");
    EXPECT_EQ(plan("-[1]").launch.args[1].values, (std::vector<int64_t>{-1}));
}

TEST(Expression, FormatsValuesAsTheyAreWritten) {
    EXPECT_EQ(formatValue(Value{{}, {-3}}), "-3");
    EXPECT_EQ(formatValue(Value{{2}, {1, 2}}), "[1, 2]");
    EXPECT_EQ(formatValue(Value{{2, 2}, {1, 2, 3, 4}}), "[[1, 2], [3, 4]]");
    EXPECT_EQ(formatValue(Value{{3}, {bitsOf(2.0f), bitsOf(-0.0f), bitsOf(0.1f)}, true}), "[2.0, -0.0, 0.1]");
    EXPECT_EQ(formatValue(Value{{}, {bitsOf(1e20f)}, true}), "1e+20");
    EXPECT_EQ(formatValue(Value{{}, {0x7fffffff}, true}), "nan");
    EXPECT_EQ(formatShape({2, 3}), "2x3 matrix");
    EXPECT_EQ(pointAt("[1, 2", 6), "  [1, 2\n       ^");
}

TEST(Expression, HostileExpressionsAreRefusedWithTheLimitBeforeTheStackOrTheClockRunsOut) {
    auto repeat = [](const std::string& s, int n) {
        std::string out;
        for (int i = 0; i < n; ++i) out += s;
        return out;
    };
    expectError(repeat("(", 10000) + "1" + repeat(")", 10000), 65, "nested too deeply (limit 64");
    expectError(repeat("sum(", 20000) + "[1]" + repeat(")", 20000), 1, "more than the limit of 100000");
    expectError(repeat("sum(", 10000) + "[1]" + repeat(")", 10000), 257, "nested too deeply");
    expectError(repeat("-", 60000) + "[1]", 65, "nested too deeply");
    expectError(repeat("[", 17000), 3, "arrays nest two deep at most");  // the recursion stops at the third
    expectError(repeat("[", 99999) + "1", 3, "arrays nest two deep at most");
    expectError(repeat("[", 1000000), 1, "more than the limit of 100000");
    expectError("1" + repeat(" + 1", 15000), 403, "more than 100 operations");
    expectError("[[1, 2], [3, 4]]" + repeat(".T", 30000), 217, "more than 100 operations");
    expectError(repeat("1 + ", 30000) + "1", 1, "more than the limit of 100000");
    // Just inside the limits.
    EXPECT_EQ(parse(repeat("(", 64) + "1" + repeat(")", 64))->literal, (Value{{}, {1}}));
    EXPECT_EQ(parse("1" + repeat(" + 1", 100))->op, Op::Add);
}
