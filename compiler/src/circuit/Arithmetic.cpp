// 32-bit arithmetic gadgets over little-endian bit features (docs/circuit.md has their costs).
#include <stdexcept>

#include "qgpu/compiler/circuit/Circuit.h"

namespace qgpu::circuit {

namespace {

void require32(const std::vector<std::vector<int>>& operands, const char* what) {
    for (const auto& v : operands)
        if (v.size() != 32) throw std::invalid_argument(std::string(what) + " takes 32-bit operands");
}

}  // namespace

void Circuit::releaseAll(const std::vector<int>& dims, int lastLayer) {
    for (int d : dims)
        if (d >= 0) release(d, lastLayer);
}

void Circuit::add32(int first, const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& out,
                    bool subtract, const std::string& name) {
    require32({a, b, out}, "add32");
    while (layerCount() < first + 3) addLayer();
    // Subtraction is a + ~b + 1: b's truths enter as 1 - t and the carry into bit 0 is 1.
    int carryIn = subtract ? 1 : 0;
    auto addB = [&](int j, int weight, std::vector<std::pair<int, int>>& terms, int& theta) {
        terms.push_back({b[size_t(j)], subtract ? -weight : weight});
        if (subtract) theta += weight;
    };
    std::vector<int> carry(33, -1);  // carry[i]: carry into bit i (slot); bit 0 has the constant carryIn
    for (int i = 1; i <= 32; ++i) carry[size_t(i)] = addFeature(name + ".c" + std::to_string(i), first);
    // c_i = [sum_{lo <= j < i} 2^(j-lo) (a_j + b_j) + c_lo >= 2^(i-lo)] over the 16-bit window [lo, i), so
    // every pre-activation stays an exact fp32 integer
    for (int i = 1; i <= 32; ++i) {
        int lo = i <= 16 ? 0 : 16, layer = i <= 16 ? first : first + 1;
        std::vector<std::pair<int, int>> terms;
        int theta = -(1 << (i - lo));
        for (int j = lo; j < i; ++j) {
            terms.push_back({a[size_t(j)], 1 << (j - lo)});
            addB(j, 1 << (j - lo), terms, theta);
        }
        if (lo == 0)
            theta += carryIn;
        else
            terms.push_back({carry[16], 1});
        threshold(layer, terms, theta, carry[size_t(i)]);
    }
    // s_i = parity(a_i, b_i, c_i) = [n >= 1] - [n >= 2] + [n >= 3]
    for (int i = 0; i < 32; ++i) {
        std::vector<std::pair<int, int>> terms{{a[size_t(i)], 1}};
        int n0 = 0;
        addB(i, 1, terms, n0);
        if (i == 0)
            n0 += carryIn;
        else
            terms.push_back({carry[size_t(i)], 1});
        for (int k = 1; k <= 3; ++k) step(first + 2, truthSum(terms, n0 - k), {{out[size_t(i)], k == 2 ? 2.f : -2.f}});
    }
    releaseAll(carry, first + 2);
}

void Circuit::halfTerms(const std::vector<int>& v, int lo, int sign, bool isSigned,
                        std::vector<std::pair<int, int>>& terms) const {
    for (int j = lo; j < lo + 16; ++j) {
        int w = 1 << (j - lo);
        if (isSigned && j == 31) w = -w;  // the sign bit weighs -2^31 (here -2^15 within the high half)
        terms.push_back({v[size_t(j)], sign * w});
    }
}

// Per 16-bit half [hi_a - hi_b >= 1], [>= 0], [<= 0] and [lo_a - lo_b >= 0], then
// ge = [2 gt_hi + ge_hi + le_hi + ge_lo >= 3].
void Circuit::greaterOrEqual32(int first, const std::vector<int>& a, const std::vector<int>& b, int out, bool isSigned,
                               const std::string& name) {
    require32({a, b}, "compares");
    while (layerCount() < first + 2) addLayer();
    int gtHi = addFeature(name + ".gt_hi", first), geHi = addFeature(name + ".ge_hi", first);
    int leHi = addFeature(name + ".le_hi", first), geLo = addFeature(name + ".ge_lo", first);
    std::vector<std::pair<int, int>> hi, neg, lo;
    halfTerms(a, 16, 1, isSigned, hi);
    halfTerms(b, 16, -1, isSigned, hi);  // hi = hi_a - hi_b
    for (auto [d, w] : hi) neg.push_back({d, -w});
    halfTerms(a, 0, 1, false, lo);
    halfTerms(b, 0, -1, false, lo);  // the low halves always compare unsigned
    threshold(first, hi, -1, gtHi);
    threshold(first, hi, 0, geHi);
    threshold(first, neg, 0, leHi);
    threshold(first, lo, 0, geLo);
    threshold(first + 1, {{gtHi, 2}, {geHi, 1}, {leHi, 1}, {geLo, 1}}, -3, out);
    releaseAll({gtHi, geHi, leHi, geLo}, first + 1);
}

// Both halves' differences >= 0 and <= 0.
void Circuit::equal32(int first, const std::vector<int>& a, const std::vector<int>& b, int out,
                      const std::string& name) {
    require32({a, b}, "compares");
    while (layerCount() < first + 2) addLayer();
    std::vector<std::pair<int, int>> parts;
    for (int lo : {0, 16}) {
        std::vector<std::pair<int, int>> diff, neg;
        halfTerms(a, lo, 1, false, diff);
        halfTerms(b, lo, -1, false, diff);
        for (auto [d, w] : diff) neg.push_back({d, -w});
        int ge = addFeature(name + ".ge" + std::to_string(lo), first);
        int le = addFeature(name + ".le" + std::to_string(lo), first);
        threshold(first, diff, 0, ge);
        threshold(first, neg, 0, le);
        parts.push_back({ge, 1});
        parts.push_back({le, 1});
    }
    threshold(first + 1, parts, -4, out);
    for (auto [d, w] : parts) release(d, first + 1);
}

void Circuit::select(int layer, int c, const std::vector<int>& x, const std::vector<int>& y,
                     const std::vector<int>& out) {
    if (x.size() != y.size() || x.size() != out.size()) throw std::invalid_argument("select takes equal widths");
    for (size_t i = 0; i < out.size(); ++i) {
        threshold(layer, {{c, 1}, {x[i], 1}}, -2, out[i]);   // c and x_i
        threshold(layer, {{c, -1}, {y[i], 1}}, -1, out[i]);  // not c and y_i
    }
}

void Circuit::minMax32(int first, const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& out,
                       bool isMax, bool isSigned, const std::string& name) {
    require32({a, b, out}, "minMax32");
    int ge = addFeature(name + ".ge", first);
    greaterOrEqual32(first, a, b, ge, isSigned, name);
    while (layerCount() < first + 3) addLayer();
    select(first + 2, ge, isMax ? a : b, isMax ? b : a, out);
    release(ge, first + 2);
}

// The amount decoded to one-hot (32 positions plus "32 or more"), then one exclusive AND per output bit
// and position.
void Circuit::shift32(int first, Shift kind, const std::vector<int>& a, const std::vector<int>& amount,
                      const std::vector<int>& out, const std::string& name) {
    require32({a, amount, out}, "shift32");
    while (layerCount() < first + 2) addLayer();
    std::vector<int> by;  // by[k]: the amount is exactly k (k < 32)
    for (int k = 0; k < 32; ++k) {
        by.push_back(addFeature(name + ".by" + std::to_string(k), first));
        std::vector<std::pair<int, int>> terms;
        int ones = 0;
        for (int i = 0; i < 32; ++i) {
            bool set = i < 5 && (k >> i & 1);
            terms.push_back({amount[size_t(i)], set ? 1 : -1});
            ones += set;
        }
        threshold(first, terms, -ones, by.back());  // all of k's bits set and every other bit clear
    }
    int big = addFeature(name + ".big", first);  // the amount is 32 or more (a high bit is set)
    std::vector<std::pair<int, int>> high;
    for (int i = 5; i < 32; ++i) high.push_back({amount[size_t(i)], 1});
    threshold(first, high, -1, big);
    for (int i = 0; i < 32; ++i) {
        for (int k = 0; k < 32; ++k) {
            int src = kind == Shift::Left ? i - k : i + k;
            if (src >= 32 && kind == Shift::RightArithmetic) src = 31;
            if (src < 0 || src >= 32) continue;
            threshold(first + 1, {{by[size_t(k)], 1}, {a[size_t(src)], 1}}, -2, out[size_t(i)]);
        }
        if (kind == Shift::RightArithmetic) threshold(first + 1, {{big, 1}, {a[31], 1}}, -2, out[size_t(i)]);
    }
    releaseAll(by, first + 1);
    release(big, first + 1);
}

// Bit k of a * b is bit k of S_k = sum_{i <= k} t(a_i) ((b << i) mod 2^(k+1)), an integer below 2^21 for
// k < 16: P_k = S_k, and the bit is floor(P_k / 2^k) mod 2, an alternating sum of steps [P_k >= m 2^k].
// For k >= 16, S_k = 2^16 P_k + S_15 with P_k = sum_i t(a_i) floor(((b << i) mod 2^(k+1)) / 2^16), so
// the bit is floor((P_k + C) / 2^(k-16)) mod 2 with the carry C = floor(S_15 / 2^16) in 0..15. Layer 1
// builds every P_k from masked products (one neuron per a_i), layer 2 the low bits and C, layer 3 the
// high bits. Every value stays an integer below 2^22, so each step is exact in fp32.
void Circuit::multiply32(int first, const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& out,
                         const std::string& name) {
    require32({a, b, out}, "multiply32");
    while (layerCount() < first + 3) addLayer();
    std::vector<int> partial;
    std::vector<int64_t> maxPartial;
    for (int k = 0; k < 32; ++k) {
        int lo = k < 16 ? 0 : 16;
        partial.push_back(addInteger(name + ".p" + std::to_string(k), first));
        int64_t most = 0;
        for (int i = 0; i <= k; ++i) {
            Linear shifted;  // floor(((b << i) mod 2^(k+1)) / 2^lo) over b's truths
            for (int j = std::max(0, lo - i); i + j <= k; ++j) {
                shifted.add(truth(b[size_t(j)]), double(int64_t(1) << (i + j - lo)));
                most += int64_t(1) << (i + j - lo);
            }
            maskedProduct(first, a[size_t(i)], shifted, {{partial.back(), 1.f}});
        }
        maxPartial.push_back(most);
    }
    // bit := sum_{m=1..M} (-1)^(m+1) [x >= m 2^p] = floor(x / 2^p) mod 2 for 0 <= x < (M + 1) 2^p
    auto parity = [&](int layer, const Linear& x, int p, int64_t most, int bit) {
        for (int64_t m = 1; m <= (most >> p); ++m)
            step(layer, Linear(x).add(Linear{{}, -double(m << p)}), {{bit, m % 2 ? -2.f : 2.f}});
    };
    for (int k = 0; k < 16; ++k) parity(first + 1, value(partial[size_t(k)]), k, maxPartial[size_t(k)], out[size_t(k)]);
    int carry = addInteger(name + ".carry16", first);
    for (int m = 1; m <= int(maxPartial[15] >> 16); ++m)
        step(first + 1, value(partial[15]).add(Linear{{}, -double(m << 16)}), {{carry, 1.f}});
    for (int k = 16; k < 32; ++k) {
        Linear x = value(partial[size_t(k)]).add(value(carry));
        parity(first + 2, x, k - 16, maxPartial[size_t(k)] + (maxPartial[15] >> 16), out[size_t(k)]);
    }
    releaseAll(partial, first + 2);
    release(carry, first + 2);
}

}  // namespace qgpu::circuit
