// The expression language's float operations, run as ready-made kernel launches on the interpreter, against
// the same fp32 arithmetic on the host's own floats: one rounding per operation (no fma), sums in the
// kernels' order, NaN as the machine's canonical 0x7fffffff.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "ExpressionTestSupport.h"
#include "qgpu/compiler/OpKernels.h"
#include "qgpu/core/Expression.h"

using namespace qgpu;
using namespace qgpu::expr;

namespace {

Evaluation run(const std::string& text) { return qgpu::testing::evaluateOnInterpreter(text); }

int32_t bits(float f) { return std::isnan(f) ? 0x7fffffff : std::bit_cast<int32_t>(f); }
float value(int32_t word) { return std::bit_cast<float>(word); }

std::mt19937 rng(2024);

// Floats of every magnitude with fractions (sums and products round), and a few small whole numbers.
Value randomFloats(std::vector<int> shape) {
    std::uniform_real_distribution<float> mantissa(-2.0f, 2.0f);
    std::uniform_int_distribution<int> exponent(-30, 30);
    Value v{shape, {}, true};
    int n = 1;
    for (int d : shape) n *= d;
    for (int i = 0; i < n; ++i)
        v.values.push_back(bits(i % 4 == 3 ? float(i % 7) : std::ldexp(mantissa(rng), exponent(rng))));
    return v;
}

// Halves between -16 and 16: every sum of them is exact, so any order of addition gives the same bits.
Value exactlySummable(int n) {
    std::uniform_int_distribution<int> halves(-32, 32);
    Value v{{n}, {}, true};
    for (int i = 0; i < n; ++i) v.values.push_back(bits(float(halves(rng)) * 0.5f));
    return v;
}

std::string text(const Value& v) { return formatValue(v); }

Value map2(const Value& a, const Value& b, float (*f)(float, float)) {
    Value out{a.shape.empty() ? b.shape : a.shape, {}, true};
    size_t n = std::max(a.values.size(), b.values.size());
    for (size_t i = 0; i < n; ++i)
        out.values.push_back(
            bits(f(value(a.values[a.shape.empty() ? 0 : i]), value(b.values[b.shape.empty() ? 0 : i]))));
    return out;
}

// Each result element summed in order of the inner index, each product rounded before it is added.
Value matmul(const Value& a, const Value& b) {
    int rows = a.shape.size() == 2 ? a.shape[0] : 1, inner = b.shape[0], cols = b.shape.size() == 2 ? b.shape[1] : 1;
    Value out{{}, {}, true};
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            float acc = 0.0f;
            for (int k = 0; k < inner; ++k) {
                volatile float product = value(a.values[size_t(r * inner + k)]) * value(b.values[size_t(k * cols + c)]);
                acc = acc + product;
            }
            out.values.push_back(bits(acc));
        }
    if (a.shape.size() == 2 && b.shape.size() == 2)
        out.shape = {rows, cols};
    else
        out.shape = {a.shape.size() == 2 ? rows : cols};
    return out;
}

}  // namespace

TEST(ExpressionFloatEval, ElementwiseOperationsRoundLikeTheHost) {
    auto add = [](float x, float y) { return x + y; };
    auto sub = [](float x, float y) { return x - y; };
    auto mul = [](float x, float y) { return x * y; };
    for (std::vector<int> shape : {std::vector<int>{1}, {5}, {17}, {3, 4}, {40}}) {  // small and strided
        Value a = randomFloats(shape), b = randomFloats(shape), s = randomFloats({});
        EXPECT_EQ(run(text(a) + " + " + text(b)).value, map2(a, b, add)) << formatShape(shape);
        EXPECT_EQ(run(text(a) + " - " + text(b)).value, map2(a, b, sub)) << formatShape(shape);
        EXPECT_EQ(run(text(a) + " * " + text(b)).value, map2(a, b, mul)) << formatShape(shape);
        EXPECT_EQ(run(text(s) + " * " + text(a)).value, map2(s, a, mul)) << formatShape(shape);
        EXPECT_EQ(run(text(a) + " - " + text(s)).value, map2(a, s, sub)) << formatShape(shape);
        EXPECT_EQ(run("-(" + text(a) + ")").value, map2(a, Value{{}, {bits(-1.0f)}, true}, mul));
    }
}

TEST(ExpressionFloatEval, SpecialResultsKeepTheirSigns) {
    EXPECT_EQ(text(run("[1e38, -3e38] * 10").value), "[inf, -inf]");   // overflow
    EXPECT_EQ(text(run("[1e38] * 10 - [1e38] * 10").value), "[nan]");  // inf - inf
    EXPECT_EQ(text(run("-[0.0, 1.5]").value), "[-0.0, -1.5]");
    EXPECT_EQ(text(run("[1e-45] * 0.5").value), "[0.0]");            // underflow, ties to even
    EXPECT_EQ(text(run("[4e-45] * 0.5").value), "[3e-45]");          // 1.5 of the smallest: to even, 2
    EXPECT_EQ(text(run("0.1 + 0.2").value), "0.3");                  // the float sum rounds to 0.3f
    EXPECT_EQ(text(run("[16777216.0] + 1").value), "[16777216.0]");  // a tie, to even
}

TEST(ExpressionFloatEval, ReductionsAndProductsMatchTheHost) {
    for (int n : {1, 3, 4, 9, 33, 100}) {
        Value a = exactlySummable(n), b = exactlySummable(n);
        float dot = 0, sum = 0, max = value(a.values[0]);
        for (int i = 0; i < n; ++i) {
            dot += value(a.values[size_t(i)]) * value(b.values[size_t(i)]);
            sum += value(a.values[size_t(i)]);
            max = std::fmax(max, value(a.values[size_t(i)]));
        }
        EXPECT_EQ(run(text(a) + " @ " + text(b)).value, (Value{{}, {bits(dot)}, true})) << n;
        EXPECT_EQ(run("sum(" + text(a) + ")").value, (Value{{}, {bits(sum)}, true})) << n;
        EXPECT_EQ(run("max(" + text(a) + ")").value, (Value{{}, {bits(max)}, true})) << n;
    }
    EXPECT_EQ(text(run("max([-0.0, -5.5, -1e-45])").value), "-0.0");
    for (const auto& s : std::vector<std::vector<int>>{{1, 1}, {2, 3}, {5, 7}, {9, 1}, {6, 6}}) {
        Value m = randomFloats(s), v = randomFloats({s[1]}), u = randomFloats({s[0]}), n = randomFloats({s[1], 3});
        EXPECT_EQ(run(text(m) + " @ " + text(v)).value, matmul(m, v)) << formatShape(s);
        EXPECT_EQ(run(text(u) + " @ " + text(m)).value, matmul(u, m)) << formatShape(s);
        EXPECT_EQ(run(text(m) + " @ " + text(n)).value, matmul(m, n)) << formatShape(s);
        Value t{{s[1], s[0]}, {}, true};
        for (int c = 0; c < s[1]; ++c)
            for (int r = 0; r < s[0]; ++r) t.values.push_back(m.values[size_t(r * s[1] + c)]);
        EXPECT_EQ(run(text(m) + ".T").value, t) << formatShape(s);
    }
}
