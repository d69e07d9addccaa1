// Every operation of the expression language, run as ready-made kernel launches on the interpreter, against
// the same arithmetic in plain C++ (32-bit wrapping, as the machine computes).
#include <gtest/gtest.h>

#include <random>

#include "ExpressionTestSupport.h"
#include "qgpu/compiler/OpKernels.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Expression.h"

using namespace qgpu;
using namespace qgpu::expr;

namespace {

Evaluation run(const std::string& text) { return qgpu::testing::evaluateOnInterpreter(text); }

int32_t wrap(int64_t v) { return int32_t(uint32_t(uint64_t(v))); }

std::mt19937 rng(1234);
Value randomValue(std::vector<int> shape) {
    std::uniform_int_distribution<int32_t> small(-50, 50), any(INT32_MIN, INT32_MAX);
    Value v{shape, {}};
    int n = 1;
    for (int d : shape) n *= d;
    for (int i = 0; i < n; ++i) v.values.push_back(i % 5 == 4 ? any(rng) : small(rng));  // some wrap around
    return v;
}

std::string text(const Value& v) { return formatValue(v); }

Value map2(const Value& a, const Value& b, int64_t (*f)(int64_t, int64_t)) {
    Value out{a.shape.empty() ? b.shape : a.shape, {}};
    size_t n = std::max(a.values.size(), b.values.size());
    for (size_t i = 0; i < n; ++i)
        out.values.push_back(wrap(f(a.values[a.shape.empty() ? 0 : i], b.values[b.shape.empty() ? 0 : i])));
    return out;
}

Value matmul(const Value& a, const Value& b) {
    int rows = a.shape.size() == 2 ? a.shape[0] : 1, inner = b.shape[0], cols = b.shape.size() == 2 ? b.shape[1] : 1;
    Value out{{}, {}};
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            uint32_t acc = 0;
            for (int k = 0; k < inner; ++k)
                acc += uint32_t(a.values[size_t(r * inner + k)]) * uint32_t(b.values[size_t(k * cols + c)]);
            out.values.push_back(int32_t(acc));
        }
    if (a.shape.size() == 2 && b.shape.size() == 2)
        out.shape = {rows, cols};
    else if (a.shape.size() == 2)
        out.shape = {rows};
    else if (b.shape.size() == 2)
        out.shape = {cols};
    return out;
}

}  // namespace

TEST(ExpressionEval, TheDotProductOfTheIssue) {
    Evaluation e = run("[1, 2, 3] @ [4, 5, 6]");
    EXPECT_EQ(e.value, (Value{{}, {32}}));
    ASSERT_EQ(e.launches.size(), 1u);
    EXPECT_EQ(e.launches[0].launch.kernel, "op_dot_small");
    EXPECT_EQ(e.launches[0].source, "[1, 2, 3] @ [4, 5, 6]");
    EXPECT_GT(e.launches[0].outcome.steps, 0u);
}

TEST(ExpressionEval, ElementwiseAndScalarOperationsMatchPlainCpp) {
    auto add = [](int64_t x, int64_t y) { return x + y; };
    auto sub = [](int64_t x, int64_t y) { return x - y; };
    auto mul = [](int64_t x, int64_t y) { return int64_t(uint32_t(x) * uint32_t(y)); };
    for (std::vector<int> shape : {std::vector<int>{1}, {5}, {17}, {3, 4}, {40}, {6, 6}}) {  // small and strided
        Value a = randomValue(shape), b = randomValue(shape), s = randomValue({});
        EXPECT_EQ(run(text(a) + " + " + text(b)).value, map2(a, b, add)) << formatShape(shape);
        EXPECT_EQ(run(text(a) + " - " + text(b)).value, map2(a, b, sub)) << formatShape(shape);
        EXPECT_EQ(run(text(a) + " * " + text(b)).value, map2(a, b, mul)) << formatShape(shape);
        EXPECT_EQ(run(text(a) + " + " + text(s)).value, map2(a, s, add));
        EXPECT_EQ(run(text(s) + " * " + text(a)).value, map2(s, a, mul));
        EXPECT_EQ(run(text(a) + " - " + text(s)).value, map2(a, s, sub));
        EXPECT_EQ(run(text(s) + " - " + text(a)).value, map2(s, a, sub));
        EXPECT_EQ(run("-(" + text(a) + ")").value, map2(Value{{}, {0}}, a, sub));
    }
    EXPECT_EQ(run("7 - 10").value, (Value{{}, {-3}}));
    EXPECT_EQ(run("2147483647 + 1").value, (Value{{}, {INT32_MIN}}));  // wraps like the machine
}

TEST(ExpressionEval, ReductionsMatchPlainCpp) {
    for (int n : {1, 3, 4, 9, 33, 100}) {
        Value a = randomValue({n}), b = randomValue({n});
        uint32_t dot = 0, sum = 0;
        int32_t max = a.values[0];
        for (int i = 0; i < n; ++i) {
            dot += uint32_t(a.values[size_t(i)]) * uint32_t(b.values[size_t(i)]);
            sum += uint32_t(a.values[size_t(i)]);
            max = std::max(max, a.values[size_t(i)]);
        }
        EXPECT_EQ(run(text(a) + " @ " + text(b)).value.values, std::vector<int32_t>{int32_t(dot)}) << n;
        EXPECT_EQ(run("dot(" + text(a) + ", " + text(b) + ")").value.values, std::vector<int32_t>{int32_t(dot)});
        EXPECT_EQ(run("sum(" + text(a) + ")").value.values, std::vector<int32_t>{int32_t(sum)}) << n;
        EXPECT_EQ(run("max(" + text(a) + ")").value.values, std::vector<int32_t>{max}) << n;
    }
    EXPECT_EQ(run("sum([[1, 2], [3, 4]])").value, (Value{{}, {10}}));
    EXPECT_EQ(run("max([[-5, -2], [-9, -3]])").value, (Value{{}, {-2}}));
}

TEST(ExpressionEval, MatrixProductsAndTransposesMatchPlainCpp) {
    const std::vector<std::vector<int>> shapes = {{1, 1}, {2, 3}, {3, 2}, {4, 4}, {5, 7}, {1, 9}, {9, 1}, {10, 10}};
    for (const auto& s : shapes) {
        Value m = randomValue(s), v = randomValue({s[1]}), u = randomValue({s[0]}), n = randomValue({s[1], 3});
        EXPECT_EQ(run(text(m) + " @ " + text(v)).value, matmul(m, v)) << formatShape(s);
        EXPECT_EQ(run(text(u) + " @ " + text(m)).value, matmul(u, m)) << formatShape(s);
        EXPECT_EQ(run(text(m) + " @ " + text(n)).value, matmul(m, n)) << formatShape(s);
        Value t{{s[1], s[0]}, {}};
        for (int c = 0; c < s[1]; ++c)
            for (int r = 0; r < s[0]; ++r) t.values.push_back(m.values[size_t(r * s[1] + c)]);
        EXPECT_EQ(run("transpose(" + text(m) + ")").value, t) << formatShape(s);
        EXPECT_EQ(run(text(m) + ".T").value, t);
    }
}

TEST(ExpressionEval, NestedExpressionsRunInnermostFirst) {
    // [[1, 2], [3, 4]] @ [5, 6] = [17, 39]; sum 56; * 2 = 112 (two scalars: one-element arrays); max 9; 103.
    Evaluation e = run("sum([[1, 2], [3, 4]] @ [5, 6]) * 2 - max([1, 9, 3])");
    EXPECT_EQ(e.value, (Value{{}, {103}}));
    std::vector<std::string> kernels;
    for (const auto& l : e.launches) kernels.push_back(l.launch.kernel);
    EXPECT_EQ(kernels,
              (std::vector<std::string>{"op_matvec", "op_sum_small", "op_ew_mul_small", "op_max", "op_ew_sub_small"}));
    EXPECT_EQ(e.launches[0].result, (Value{{2}, {17, 39}}));
    EXPECT_EQ(e.launches[1].source, "sum([[1, 2], [3, 4]] @ [5, 6])");
    EXPECT_EQ(run("([1, 2] + [3, 4]) @ ([[1, 0], [0, 1]].T @ [1, 1])").value, (Value{{}, {10}}));
    EXPECT_TRUE(run("[1, 2]").launches.empty());  // a literal alone runs nothing
}

TEST(ExpressionEval, AMissingKernelFolderIsAClearError) {
    OpKernelLibrary nowhere("/nonexistent/kernels");
    ReferenceKernelRunner runner(nowhere);
    try {
        evaluate("[1] + [2]", runner);
        FAIL() << "expected a DiagnosticError";
    } catch (const DiagnosticError& e) {
        EXPECT_NE(std::string(e.what()).find("op_ew_add_small.cu is missing"), std::string::npos) << e.what();
    }
}
