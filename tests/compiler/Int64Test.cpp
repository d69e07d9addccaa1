// 64-bit integers on the reference interpreter: long long and unsigned long long arithmetic, compares,
// shifts, division, conversions, parameters and array elements, each checked against the host's own 64-bit
// arithmetic over values that carry between the words, sit at the limits, or have one word zero.
#include <gtest/gtest.h>

#include <climits>
#include <cmath>
#include <functional>

#include "KernelRun.h"

using namespace qgpu;

namespace {

using i64 = long long;
using u64 = unsigned long long;

const std::vector<i64> kA = {0,
                             1,
                             -1,
                             LLONG_MAX,
                             LLONG_MIN,
                             0xffffffffLL,
                             0x100000000,
                             -0x100000000,
                             12345678901234,
                             -987654321012,
                             0x7fffffff,
                             -0x80000000LL,
                             77,
                             -5,
                             0x123456789abcdefLL,
                             3};
const std::vector<i64> kB = {7,  -3,  1000000007, 2, -1, 0xffffffffLL,    3, 0x100000001, -9, 4096,
                             63, -64, 0x80000000, 5, -2, 0x7fffffffffffLL};

struct Case {
    std::string cuda;  // an expression of a, b (long long) and ua, ub (unsigned long long)
    std::function<i64(i64, i64)> host;
};

// The host's two's-complement arithmetic, written without the undefined overflow of signed operations.
i64 wrap(u64 x) { return i64(x); }

const std::vector<Case>& cases() {
    static const std::vector<Case> all = {
        {"a + b", [](i64 a, i64 b) { return wrap(u64(a) + u64(b)); }},
        {"a - b", [](i64 a, i64 b) { return wrap(u64(a) - u64(b)); }},
        {"a * b", [](i64 a, i64 b) { return wrap(u64(a) * u64(b)); }},
        {"ua * 0x9e3779b97f4a7c15ull", [](i64 a, i64) { return wrap(u64(a) * 0x9e3779b97f4a7c15ull); }},
        {"(b == -1 ? a : a / b)", [](i64 a, i64 b) { return b == -1 ? a : a / b; }},
        {"(b == -1 ? 0 : a % b)", [](i64 a, i64 b) { return b == -1 ? 0 : a % b; }},
        {"(long long)(ua / ub)", [](i64 a, i64 b) { return wrap(u64(a) / u64(b)); }},
        {"(long long)(ua % ub)", [](i64 a, i64 b) { return wrap(u64(a) % u64(b)); }},
        {"a / 1000", [](i64 a, i64) { return a / 1000; }},
        {"(long long)(ua % 10)", [](i64 a, i64) { return wrap(u64(a) % 10); }},
        {"(long long)(ua << (b & 63))", [](i64 a, i64 b) { return wrap(u64(a) << (b & 63)); }},
        {"a >> (b & 63)", [](i64 a, i64 b) { return a >> (b & 63); }},
        {"(long long)(ua >> (b & 63))", [](i64 a, i64 b) { return wrap(u64(a) >> (b & 63)); }},
        {"(long long)(ua << 13) ^ (a >> 40)", [](i64 a, i64) { return wrap(u64(a) << 13) ^ (a >> 40); }},
        {"(long long)(ua >> 32) + (a >> 3)", [](i64 a, i64) { return wrap((u64(a) >> 32) + u64(a >> 3)); }},
        {"(long long)(a < b) + 2 * (a <= b) + 4 * (a == b) + 8 * (ua < ub) + 16 * (ua >= ub) + 32 * (a != 77)",
         [](i64 a, i64 b) {
             return i64(a < b) + 2 * (a <= b) + 4 * (a == b) + 8 * (u64(a) < u64(b)) + 16 * (u64(a) >= u64(b)) +
                    32 * (a != 77);
         }},
        {"min(a, b) ^ max(a, b)", [](i64 a, i64 b) { return std::min(a, b) ^ std::max(a, b); }},
        {"(long long)(min(ua, ub) + max(ua, ub))",
         [](i64 a, i64 b) { return wrap(std::min(u64(a), u64(b)) + std::max(u64(a), u64(b))); }},
        {"(a == LLONG_MIN ? 0 : llabs(a))", [](i64 a, i64) { return a == LLONG_MIN ? 0 : std::llabs(a); }},
        {"__mul64hi(a, b)", [](i64 a, i64 b) { return i64((__int128)a * b >> 64); }},
        {"(long long)__umul64hi(ua, ub)",
         [](i64 a, i64 b) { return i64(u64((unsigned __int128)u64(a) * u64(b) >> 64)); }},
        {"(long long)(int)a + (long long)(unsigned)b", [](i64 a, i64 b) { return i64(int(a)) + i64(unsigned(b)); }},
        {"(a & b) | (~a & 0xff00ff00ff00ll)", [](i64 a, i64 b) { return (a & b) | (~a & 0xff00ff00ff00ll); }},
        {"(long long)__popcll(ua) * 100 + __clzll(a)",
         [](i64 a, i64) { return i64(__builtin_popcountll(u64(a))) * 100 + (a == 0 ? 64 : __builtin_clzll(u64(a))); }},
        {"(long long)__brevll(ua)",
         [](i64 a, i64) {
             u64 x = u64(a), r = 0;
             for (int i = 0; i < 64; ++i) r |= ((x >> i) & 1) << (63 - i);
             return i64(r);
         }},
    };
    return all;
}

// Cases [first, last) in one kernel: out[(i - first) * n + t] is case i for thread t.
std::string kernelSource(size_t first, size_t last) {
    std::string s =
        "#include <climits>\n__global__ void k(const long long* as, const long long* bs, long long* out, int n) {\n"
        "  int t = threadIdx.x;\n  long long a = as[t], b = bs[t];\n"
        "  unsigned long long ua = a, ub = b;\n";
    for (size_t i = first; i < last; ++i)
        s += "  out[" + std::to_string(i - first) + " * n + t] = " + cases()[i].cuda + ";\n";
    return s + "}\n";
}

std::string elements(const std::vector<i64>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

using qgpu::tests::runToEnd;

}  // namespace

TEST(Int64, ArithmeticComparesShiftsAndDivisionGiveTheHostsAnswers) {
    size_t n = kA.size(), perKernel = 3;  // three cases a kernel keep each within the ROM
    for (size_t first = 0; first < cases().size(); first += perKernel) {
        size_t last = std::min(first + perKernel, cases().size());
        std::string launch = R"({"block": )" + std::to_string(n) +
                             R"(, "args": [{"name": "as", "type": "i64", "array": )" + elements(kA) +
                             R"(}, {"name": "bs", "type": "i64", "array": )" + elements(kB) +
                             R"(}, {"name": "out", "type": "i64", "zeros": )" + std::to_string(n * (last - first)) +
                             R"(}, {"name": "n", "scalar": )" + std::to_string(n) + "}]}";
        std::vector<int64_t> out = runToEnd(kernelSource(first, last), launch)["out"];
        ASSERT_EQ(out.size(), n * (last - first));
        for (size_t c = first; c < last; ++c)
            for (size_t t = 0; t < n; ++t)
                EXPECT_EQ(out[(c - first) * n + t], cases()[c].host(kA[t], kB[t]))
                    << cases()[c].cuda << " with a = " << kA[t] << ", b = " << kB[t];
    }
}

TEST(Int64, ParametersAndUnsignedElementsKeepAll64Bits) {
    auto r = runToEnd(
        "__global__ void k(unsigned long long* u, long long s, unsigned long long m) {\n"
        "  int t = threadIdx.x;\n  u[t] = u[t] * m + (unsigned long long)s + t;\n}\n",
        R"({"block": 2, "args": [{"name": "u", "type": "u64", "array": [18446744073709551615, 4294967296]},
            {"name": "s", "type": "i64", "scalar": -9000000000000000000},
            {"name": "m", "type": "u64", "scalar": 12297829382473034410}]})");
    std::vector<u64> in = {18446744073709551615ull, 4294967296ull};
    for (size_t t = 0; t < 2; ++t)
        EXPECT_EQ(u64(r["u"][t]), in[t] * 12297829382473034410ull + u64(-9000000000000000000ll) + t) << t;
}

TEST(Int64, ConversionsToAndFromFloatRoundAndSaturateAsAGpu) {
    auto r = runToEnd(
        "__global__ void k(const long long* a, float* f, float* uf, const float* g, long long* back, "
        "unsigned long long* uback) {\n  int t = threadIdx.x;\n  f[t] = (float)a[t];\n"
        "  uf[t] = (float)(unsigned long long)a[t];\n  back[t] = (long long)g[t];\n"
        "  uback[t] = (unsigned long long)g[t];\n  back[8 + t] = llrintf(g[t]);\n}\n",
        R"({"block": 8, "args": [
            {"name": "a", "type": "i64", "array": [0, -1, 16777217, 9007199791611905, -9223372036854775807,
                                                    9223372036854775807, 4294967295, -274877906945]},
            {"name": "f", "type": "float", "zeros": 8}, {"name": "uf", "type": "float", "zeros": 8},
            {"name": "g", "type": "float", "array": [1e30, -1e30, "nan", -2.5, 2.5, 1.8446744e19, 9.2233715e18, -0.75]},
            {"name": "back", "type": "i64", "zeros": 16}, {"name": "uback", "type": "u64", "zeros": 8}]})");
    std::vector<i64> a = {
        0, -1, 16777217, 9007199791611905, -9223372036854775807, 9223372036854775807, 4294967295, -274877906945};
    for (size_t t = 0; t < a.size(); ++t) {
        EXPECT_EQ(std::bit_cast<float>(int32_t(r["f"][t])), float(a[t])) << a[t];
        EXPECT_EQ(std::bit_cast<float>(int32_t(r["uf"][t])), float(u64(a[t]))) << a[t];
    }
    // Beyond the range a GPU saturates, and NaN gives 0 (the host's casts are undefined there).
    std::vector<i64> back = {LLONG_MAX, LLONG_MIN, 0, -2, 2, LLONG_MAX, 9223371487098961920, 0};
    std::vector<u64> uback = {ULLONG_MAX, 0, 0, 0, 2, 18446744073709551615ull, 9223371487098961920, 0};
    std::vector<i64> rounded = {LLONG_MAX, LLONG_MIN, 0, -2, 2, LLONG_MAX, 9223371487098961920, -1};
    for (size_t t = 0; t < back.size(); ++t) {
        EXPECT_EQ(r["back"][t], back[t]) << t;
        EXPECT_EQ(u64(r["uback"][t]), uback[t]) << t;
        EXPECT_EQ(r["back"][8 + t], rounded[t]) << t;
    }
}

TEST(Int64, SignedConversionsToFloatRoundDownAndUpByTheValuesSign) {
    auto r = runToEnd(
        "__global__ void k(const long long* a, float* down, float* up) {\n  int t = threadIdx.x;\n"
        "  down[t] = __ll2float_rd(a[t]);\n  up[t] = __ll2float_ru(a[t]);\n}\n",
        R"({"block": 8, "args": [
            {"name": "a", "type": "i64", "array": [0, -1, 16777217, -16777217, 9007199791611905,
                                                    -9223372036854775807, 9223372036854775807, -9223372036854775808]},
            {"name": "down", "type": "float", "zeros": 8}, {"name": "up", "type": "float", "zeros": 8}]})");
    std::vector<float> down = {0.0f,
                               -1.0f,
                               16777216.0f,
                               -16777218.0f,
                               9007199254740992.0f,
                               -9223372036854775808.0f,
                               9223371487098961920.0f,
                               -9223372036854775808.0f};
    std::vector<float> up = {0.0f,
                             -1.0f,
                             16777218.0f,
                             -16777216.0f,
                             9007200328482816.0f,
                             -9223371487098961920.0f,
                             9223372036854775808.0f,
                             -9223372036854775808.0f};
    for (size_t t = 0; t < down.size(); ++t) {
        EXPECT_EQ(std::bit_cast<float>(int32_t(r["down"][t])), down[t]) << t;
        EXPECT_EQ(std::bit_cast<float>(int32_t(r["up"][t])), up[t]) << t;
    }
}

TEST(Int64, A32BitParameterWidenedByItsLoadKeepsTheLoadsExtension) {
    // Clang loads an int parameter into a 32-bit register and converts it; inline PTX may load it straight
    // into a 64-bit one, and the load's type then says how it extends.
    auto r = runToEnd(
        "__global__ void k(unsigned long long* o, long long* s, int n) {\n"
        "  unsigned long long zero, sign;\n"
        "  asm(\"ld.param.u32 %0, [_Z1kPyPxi_param_2];\" : \"=l\"(zero));\n"
        "  asm(\"ld.param.s32 %0, [_Z1kPyPxi_param_2];\" : \"=l\"(sign));\n"
        "  o[threadIdx.x] = zero + threadIdx.x;\n  s[threadIdx.x] = (long long)sign - threadIdx.x;\n}\n",
        R"({"block": 2, "args": [{"name": "o", "type": "u64", "zeros": 2}, {"name": "s", "type": "i64", "zeros": 2},
            {"name": "n", "scalar": -5}]})");
    EXPECT_EQ(r["o"], (std::vector<int64_t>{4294967291, 4294967292}));
    EXPECT_EQ(r["s"], (std::vector<int64_t>{-5, -6}));
}

TEST(Int64, PointersStoredInMemoryReadBackAsAddresses) {
    // A linked list built in global memory and walked: each next pointer is a 64-bit store and load. (The
    // list is not the first array: an array at word 0 compares equal to nullptr on this machine.)
    auto r = runToEnd(
        "struct Node { int value; int pad; Node* next; };\n"
        "__global__ void k(int* sums, Node* nodes, int n) {\n  int t = threadIdx.x;\n"
        "  nodes[t].next = t + 1 < n ? &nodes[t + 1] : nullptr;\n  __syncthreads();\n"
        "  int sum = 0;\n  for (Node* p = &nodes[t]; p; p = p->next) sum += p->value;\n  sums[t] = sum;\n}\n",
        R"({"block": 4, "args": [{"name": "sums", "zeros": 4},
            {"name": "nodes", "array": [1, 0, 0, 0, 20, 0, 0, 0, 300, 0, 0, 0, 4000, 0, 0, 0]},
            {"name": "n", "scalar": 4}]})");
    EXPECT_EQ(r["sums"], (std::vector<int64_t>{4321, 4320, 4300, 4000}));
}
