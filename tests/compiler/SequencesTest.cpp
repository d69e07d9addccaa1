// The instruction sequences for PTX operations the machine has no opcode for (Sequences.h), run on the
// reference interpreter over edge and random operands and checked against C++ on the host: division and
// remainder with the machine's policies and their warnings, mul.hi, popc, clz, brev, and bfe/bfi/prmt with
// operands computed at run time (hand-written PTX: Clang emits those with constants only).
#include <gtest/gtest.h>

#include <bit>
#include <climits>
#include <functional>
#include <random>

#include "SequenceHarness.h"

using namespace qgpu;
using namespace qgpu::testing;

namespace {

void expectEach(const Outcome& r, const std::vector<uint32_t>& a, const std::vector<uint32_t>& b,
                const std::function<uint32_t(uint32_t, uint32_t)>& expected, const std::string& what) {
    ASSERT_EQ(r.out.size(), a.size());
    for (size_t i = 0; i < a.size(); ++i)
        EXPECT_EQ(r.out[i], expected(a[i], b[i])) << what << " of " << int32_t(a[i]) << " and " << int32_t(b[i]);
}

size_t countContaining(const std::vector<std::string>& lines, const std::string& text) {
    size_t n = 0;
    for (const auto& l : lines) n += l.find(text) != std::string::npos;
    return n;
}

const std::vector<uint32_t> kDividends = {
    0, 1,    7, uint32_t(-7), 100, uint32_t(-100), uint32_t(INT_MIN), uint32_t(INT_MAX), 0xffffffffu, uint32_t(INT_MIN),
    5, 12345};
const std::vector<uint32_t> kDivisors = {1, 7,           7, 7, uint32_t(-7),     uint32_t(-7), uint32_t(-1),
                                         2, 0xffffffffu, 0, 0, uint32_t(INT_MIN)};

int32_t signedDivision(int32_t x, int32_t y, bool remainder) {
    if (y == 0) return -1;
    if (x == INT_MIN && y == -1) return remainder ? 0 : INT_MIN;
    return remainder ? x % y : x / y;
}

}  // namespace

TEST(Sequences, SignedDivisionAndRemainderFollowCAndTheMachinesPolicies) {
    auto a = operands(1, kDividends), b = operands(2, kDivisors);
    for (size_t i = 20; i < a.size(); i += 9) b[i] = uint32_t(int32_t(b[i]) >> 20);  // small divisors
    size_t zeros = size_t(std::count(b.begin(), b.end(), 0u)), overflows = 0;
    for (size_t i = 0; i < a.size(); ++i) overflows += a[i] == uint32_t(INT_MIN) && b[i] == uint32_t(-1);
    for (bool remainder : {false, true}) {
        Outcome r = runCuda(remainder ? "x % y" : "x / y", "int", a, b);
        expectEach(
            r, a, b,
            [&](uint32_t x, uint32_t y) { return uint32_t(signedDivision(int32_t(x), int32_t(y), remainder)); },
            remainder ? "x % y" : "x / y");
        EXPECT_EQ(countContaining(r.warnings, "division by zero"), zeros);
        EXPECT_EQ(countContaining(r.warnings, "INT_MIN / -1"), overflows);
    }
}

TEST(Sequences, UnsignedDivisionAndRemainderFollowCAndTheMachinesPolicies) {
    auto a = operands(3, kDividends), b = operands(4, kDivisors);
    for (size_t i = 20; i < a.size(); i += 7) b[i] >>= 24;
    size_t zeros = size_t(std::count(b.begin(), b.end(), 0u));
    for (bool remainder : {false, true}) {
        Outcome r = runCuda(remainder ? "x % y" : "x / y", "unsigned", a, b);
        expectEach(
            r, a, b, [&](uint32_t x, uint32_t y) { return y == 0      ? 0xffffffffu
                                                          : remainder ? x % y
                                                                      : x / y; },
            remainder ? "x % y" : "x / y");
        EXPECT_EQ(countContaining(r.warnings, "division by zero"), zeros);
        EXPECT_EQ(countContaining(r.warnings, "INT_MIN"), 0u);
    }
}

TEST(Sequences, MultiplyHighIsTheTopWordOfTheProduct) {
    auto a = operands(5, {0, 1, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x10000u}),
         b = operands(6, {0, 0xffffffffu, 0xffffffffu, 0x80000000u, 0x7fffffffu, 0x10000u});
    expectEach(
        runCuda("__umulhi(x, y)", "unsigned", a, b), a, b,
        [](uint32_t x, uint32_t y) { return uint32_t((uint64_t(x) * y) >> 32); }, "__umulhi");
    expectEach(
        runCuda("__mulhi(x, y)", "int", a, b), a, b,
        [](uint32_t x, uint32_t y) { return uint32_t((int64_t(int32_t(x)) * int32_t(y)) >> 32); }, "__mulhi");
    expectEach(
        runCuda("x / 7 + x % 13", "int", a, b), a, b,
        [](uint32_t x, uint32_t) { return uint32_t(int32_t(x) / 7 + int32_t(x) % 13); }, "x / 7 + x % 13");
}

TEST(Sequences, BitCountsAndReversal) {
    auto a = operands(7, {0, 1, 0x80000000u, 0xffffffffu, 0x00010000u}), b = a;
    expectEach(
        runCuda("__popc(x)", "unsigned", a, b), a, b, [](uint32_t x, uint32_t) { return uint32_t(std::popcount(x)); },
        "__popc");
    expectEach(
        runCuda("__clz(x)", "int", a, b), a, b, [](uint32_t x, uint32_t) { return uint32_t(std::countl_zero(x)); },
        "__clz");
    expectEach(
        runCuda("__brev(x)", "unsigned", a, b), a, b,
        [](uint32_t x, uint32_t) {
            uint32_t r = 0;
            for (int i = 0; i < 32; ++i) r |= (x >> i & 1u) << (31 - i);
            return r;
        },
        "__brev");
}

namespace {

uint32_t bfe(uint32_t a, uint32_t b, uint32_t c, bool isSigned) {  // the PTX ISA's pseudocode
    uint32_t pos = b & 0xff, len = c & 0xff;
    uint32_t sbit = isSigned && len ? a >> std::min(pos + len - 1, 31u) & 1 : 0;
    uint32_t d = 0;
    for (uint32_t i = 0; i <= 31; ++i) d |= (i < len && pos + i <= 31 ? a >> (pos + i) & 1 : sbit) << i;
    return d;
}

uint32_t bfi(uint32_t a, uint32_t base, uint32_t pos, uint32_t len) {
    pos &= 0xff, len &= 0xff;
    uint32_t f = base;
    for (uint32_t i = 0; i < len && pos + i <= 31; ++i) f = (f & ~(1u << (pos + i))) | (a >> i & 1) << (pos + i);
    return f;
}

uint32_t prmt(uint32_t a, uint32_t b, uint32_t s) {
    uint64_t bytes = uint64_t(b) << 32 | a;
    uint32_t d = 0;
    for (int n = 0; n < 4; ++n) {
        uint32_t sel = s >> (4 * n) & 0xf, byte = uint32_t(bytes >> (8 * (sel & 7))) & 0xff;
        if (sel & 8) byte = byte & 0x80 ? 0xff : 0;
        d |= byte << (8 * n);
    }
    return d;
}

}  // namespace

TEST(Sequences, BitFieldExtractAndInsertWithRunTimePositionsFollowThePtxDefinition) {
    auto a = operands(8, {0xffffffffu, 0x80000000u, 0x12345678u});
    std::mt19937 rng(9);
    std::vector<uint32_t> pos, len;
    for (int i = 0; i < kThreads; ++i) {  // around 0, 32 and 256: the positions are taken mod 256
        pos.push_back(uint32_t(std::vector<int>{0, 1, 5, 17, 31, 32, 33, 40, 255, 256 + 3}[rng() % 10]));
        len.push_back(uint32_t(std::vector<int>{0, 1, 3, 8, 15, 31, 32, 33, 200, 256 + 4}[rng() % 10]));
    }
    for (bool isSigned : {false, true}) {
        Outcome r =
            run(ptxKernel(std::string("bfe.") + (isSigned ? "s32" : "u32") + " %r4, %r1, %r2, %r3"), a, pos, len);
        for (int i = 0; i < kThreads; ++i)
            EXPECT_EQ(r.out[size_t(i)], bfe(a[size_t(i)], pos[size_t(i)], len[size_t(i)], isSigned))
                << (isSigned ? "bfe.s32 " : "bfe.u32 ") << a[size_t(i)] << ", " << pos[size_t(i)] << ", "
                << len[size_t(i)];
    }
    auto base = operands(10, {});
    Outcome r = run(ptxKernel("bfi.b32 %r4, %r1, %r2, %r3, %r3"), a, base, pos);
    for (int i = 0; i < kThreads; ++i)
        EXPECT_EQ(r.out[size_t(i)], bfi(a[size_t(i)], base[size_t(i)], pos[size_t(i)], pos[size_t(i)]))
            << "bfi " << a[size_t(i)] << ", " << base[size_t(i)] << ", " << pos[size_t(i)];
    for (const char* form : {"bfe.u32 %r4, %r1, 3, 7", "bfe.s32 %r4, %r1, 29, 9", "bfe.s32 %r4, %r1, 40, 3",
                             "bfi.b32 %r4, %r1, %r2, 28, 8", "bfi.b32 %r4, %r1, %r2, 33, 8"}) {
        Outcome c = run(ptxKernel(form), a, base, pos);
        std::string f = form;
        for (int i = 0; i < kThreads; ++i) {
            uint32_t x = a[size_t(i)], y = base[size_t(i)];
            uint32_t want = f == "bfe.u32 %r4, %r1, 3, 7"         ? bfe(x, 3, 7, false)
                            : f == "bfe.s32 %r4, %r1, 29, 9"      ? bfe(x, 29, 9, true)
                            : f == "bfe.s32 %r4, %r1, 40, 3"      ? bfe(x, 40, 3, true)
                            : f == "bfi.b32 %r4, %r1, %r2, 28, 8" ? bfi(x, y, 28, 8)
                                                                  : bfi(x, y, 33, 8);
            EXPECT_EQ(c.out[size_t(i)], want) << form << " of " << x << ", " << y;
        }
    }
}

TEST(Sequences, BytePermuteWithSignReplication) {
    auto a = operands(11, {0x80ff7f01u}), b = operands(12, {0x12f4a5c3u});
    for (uint32_t s : {0x3210u, 0x7654u, 0x0123u, 0x5140u, 0x89abu, 0xf0e8u}) {
        Outcome r = run(ptxKernel("prmt.b32 %r4, %r1, %r2, " + std::to_string(s)), a, b, b);
        for (int i = 0; i < kThreads; ++i)
            EXPECT_EQ(r.out[size_t(i)], prmt(a[size_t(i)], b[size_t(i)], s)) << "prmt selector " << s;
    }
}
