// The machine's warps and thread blocks: which thread block and warp of it the current warp g is, which
// lanes it has, what warp comes after it, and the special registers. Integer arithmetic on small counts
// (at most 32): a quotient is a count of steps [a >= m d], a remainder a minus masked products.
#include "MachineParts.h"
#include "qgpu/core/Isa.h"

namespace qgpu::gpu::detail {

namespace {

using circuit::Linear;

Linear scaled(const Linear& v, double k) { return Linear{}.add(v, k); }

Linear difference(const Linear& a, const Linear& b, double k = 1) { return Linear{}.add(a).add(b, -k); }

// q := a div d (an integer dim), and the steps [a >= m d] for m = 1..31 as new bits, in `layer`. The caller
// releases the steps after its last use.
std::vector<int> quotient(Circuit& c, int layer, const std::string& name, const Linear& a, const Linear& d, int q) {
    std::vector<int> steps;
    for (int m = 1; m < 32; ++m) {
        steps.push_back(c.addFeature(name + ".step" + std::to_string(m), layer));
        c.step(layer, difference(a, d, m), {{steps.back(), -2.f}, {q, 1.f}});
    }
    return steps;
}

// r := a - d * (number of the steps set), in `layer`.
void remainder(Circuit& c, int layer, const Linear& a, const Linear& d, const std::vector<int>& steps, int r) {
    c.linear(layer, a, {{r, 1.f}});
    for (int step : steps) c.maskedProduct(layer, step, d, {{r, -1.f}});
}

// An index into a box of nx * ny * nz: out = {index mod nx, (index div nx) mod ny, index div (nx ny)}, in
// layers first..first+2.
void unflatten(Circuit& c, int first, const std::string& name, const Linear& index, const Linear& nx, const Linear& ny,
               const std::vector<int>& out) {
    int q = c.addInteger(name + ".q", first);
    std::vector<int> byX = quotient(c, first, name + ".x", index, nx, q);
    remainder(c, first + 1, index, nx, byX, out[0]);
    std::vector<int> byY = quotient(c, first + 1, name + ".y", c.value(q), ny, out[2]);
    remainder(c, first + 2, c.value(q), ny, byY, out[1]);
    for (int step : byX) c.release(step, first + 1);
    for (int step : byY) c.release(step, first + 2);
    c.release(q, first + 2);
}

Linear laneIndex(const Circuit& c, const std::vector<int>& laneOneHot) {
    Linear l;
    for (int i = 1; i < 4; ++i) l.add(c.truth(laneOneHot[size_t(i)]), i);
    return l;
}

// cta = g div W and warp = g mod W (integers), W the warps per thread block, in layers first..first+1.
void warpSplit(Circuit& c, int first, const Dims& d, const Dims& o) {
    Linear g = field(c, d[0], kExecWarp, kWarpBits), warps = field(c, d[1], ShapeWarps, 3, 1);
    std::vector<int> steps = quotient(c, first, "warp_split", g, warps, o[0][0]);
    remainder(c, first + 1, g, warps, steps, o[1][0]);
    for (int step : steps) c.release(step, first + 1);
}

// The lanes of this warp, of the next warp of its thread block and of a first warp (4 bits each), g is not
// its thread block's last warp, a thread block follows g's.
void warpLanes(Circuit& c, int first, const Dims& d, const Dims& o) {
    Linear cta = c.value(d[0][0]), warp = c.value(d[1][0]);
    Linear lastThread = field(c, d[2], ShapeCount, 5), lastWarp = field(c, d[2], ShapeWarps, 3);
    Linear lastCta = field(c, d[3], ShapeCount, 5);
    for (int l = 0; l < 4; ++l) {
        Linear here = difference(lastThread, warp, 4);  // 4 warp + l <= threads - 1
        here.constant -= l;
        c.step(first, here, {{o[0][size_t(l)], -2.f}});
        here.constant -= 4;
        c.step(first, here, {{o[1][size_t(l)], -2.f}});
        Linear fresh = lastThread;
        fresh.constant -= l;
        c.step(first, fresh, {{o[2][size_t(l)], -2.f}});
    }
    Linear sameBlock = difference(lastWarp, warp), nextCta = difference(lastCta, cta);
    sameBlock.constant -= 1, nextCta.constant -= 1;
    c.step(first, sameBlock, {{o[3][0], -2.f}});
    c.step(first, nextCta, {{o[4][0], -2.f}});
}

// The index of the warp visited next (an integer): g + 1, or on RELEASE g - warp.
void followingWarp(Circuit& c, int first, const Dims& d, const Dims& o) {
    Linear g = field(c, d[0], kExecWarp, kWarpBits, 1), warpPlusOne = c.value(d[1][0]);
    warpPlusOne.constant += 1;
    c.linear(first, g, {{o[0][0], 1.f}});
    c.maskedProduct(first, d[2][0], warpPlusOne, {{o[0][0], -1.f}});
}

// The warp visited next as 5 bits and a 32-bit one-hot, and the lanes it has.
void nextWarp(Circuit& c, int first, const Dims& d, const Dims& o) {
    // Bits and one-hot of the warp index (at most 32): steps [g' >= v] flip what changes at v.
    Linear next = c.value(d[0][0]);
    for (int v = 0; v <= 32; ++v) {
        std::vector<circuit::Term> down;
        for (int j = 0; j < 5; ++j) {
            int change = (v >> j & 1) - (v > 0 ? ((v - 1) >> j & 1) : 0);
            if (change != 0) down.push_back({o[0][size_t(j)], -2.f * float(change)});
        }
        if (v < 32) down.push_back({o[1][size_t(v)], -2.f});
        if (v > 0) down.push_back({o[1][size_t(v - 1)], 2.f});
        Linear b = next;
        b.constant -= v;
        c.step(first, b, down);
    }
    int sameBlock = d[3][0], release = d[4][0];
    for (int l = 0; l < 4; ++l) {  // the next warp of this block, or a first warp
        int out = o[2][size_t(l)];
        c.threshold(first, {{sameBlock, 1}, {release, -1}, {d[1][size_t(l)], 1}}, -2, out);
        c.threshold(first, {{sameBlock, -1}, {d[2][size_t(l)], 1}}, -1, out);
        c.threshold(first, {{sameBlock, 1}, {release, 1}, {d[2][size_t(l)], 1}}, -3, out);
    }
}

// cta mod 2 and cta / 2 as one-hots, from steps [cta >= v] for v < 32.
void ctaRows(Circuit& c, int first, const Dims& d, const Dims& o) {
    Linear cta = c.value(d[0][0]);
    for (int v = 0; v < 32; ++v) {
        std::vector<circuit::Term> down;
        down.push_back({o[0][size_t(v % 2)], -2.f});
        if (v > 0) down.push_back({o[0][size_t((v - 1) % 2)], 2.f});
        if (v % 2 == 0) down.push_back({o[1][size_t(v / 2)], -2.f});
        if (v % 2 == 0 && v > 0) down.push_back({o[1][size_t(v / 2 - 1)], 2.f});
        Linear b = cta;
        b.constant -= v;
        c.step(first, b, down);
    }
}

}  // namespace

Warps buildWarps(Scheduler& s, const Control& ctl, Value release) {
    // g = cta * W + warp, W the warps per thread block.
    auto split = s.integerGadget("warp_split", 2, {ctl.execR, ctl.blockR}, 2, warpSplit);
    Value row = s.gadget("warp_row", 1, {ctl.execR}, {32}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
        c.decode(first, std::vector<int>(d[0].begin() + kExecWarp, d[0].begin() + kExecMask), o[0]);
    })[0];
    // Lanes of this warp and of the next one (in this thread block, or the first of the next).
    auto lanes = s.gadget("warp_lanes", 1, {split[0], split[1], ctl.blockR, ctl.gridR}, {4, 4, 4, 1, 1}, warpLanes);
    // The warp visited next: g + 1, or on RELEASE the first of g's thread block (g - warp).
    Value following = s.integerGadget("following_warp", 1, {ctl.execR, split[1], release}, 1, followingWarp)[0];
    auto next = s.gadget("next_warp", 1, {following, lanes[1], lanes[2], lanes[3], release}, {5, 32, 4}, nextWarp);
    // Shared memory's rows and banks: cta mod 2 and cta / 2, one-hot.
    auto ctaParts = s.gadget("cta_rows", 1, {split[0]}, {2, 16}, ctaRows);
    return Warps{.cta = split[0],
                 .warp = split[1],
                 .row = row,
                 .present = lanes[0],
                 .sameBlock = lanes[3],
                 .nextCta = lanes[4],
                 .nextWarp = next[0],
                 .nextRow = next[1],
                 .nextMask = next[2],
                 .ctaLow = ctaParts[0],
                 .ctaHigh = ctaParts[1]};
}

Value buildSpecialRegisters(Scheduler& s, const Control& ctl, const Warps& warps, Value which) {
    auto threadIds = s.integerGadget("thread_ids", 3, {warps.warp, ctl.laneNext, ctl.blockR}, 3,
                                     [](Circuit& c, int first, const Dims& d, const Dims& o) {
                                         Linear t = scaled(c.value(d[0][0]), 4).add(laneIndex(c, d[1]));
                                         unflatten(c, first, "thread_ids", t, field(c, d[2], ShapeX, 5, 1),
                                                   field(c, d[2], ShapeY, 5, 1), {o[0][0], o[1][0], o[2][0]});
                                     });
    auto ctaIds = s.integerGadget("cta_ids", 3, {warps.cta, ctl.gridR}, 3,
                                  [](Circuit& c, int first, const Dims& d, const Dims& o) {
                                      unflatten(c, first, "cta_ids", c.value(d[0][0]), field(c, d[1], ShapeX, 5, 1),
                                                field(c, d[1], ShapeY, 5, 1), {o[0][0], o[1][0], o[2][0]});
                                  });
    std::vector<Value> inputs = {which, ctl.laneNext, ctl.blockR, ctl.gridR, warps.warp};
    inputs.insert(inputs.end(), threadIds.begin(), threadIds.end());
    inputs.insert(inputs.end(), ctaIds.begin(), ctaIds.end());
    return s.gadget("sreg_value", 2, inputs, {32}, [](Circuit& c, int first, const Dims& d, const Dims& o) {
        // The chosen register as one integer (at most 32), then its bits: bit j of x is the sum over
        // v <= x of bit_j(v) - bit_j(v - 1).
        int x = c.addInteger("sreg_value.x", first);
        auto pick = [&](SpecialReg r, const Linear& v) { c.maskedProduct(first, d[0][size_t(r)], v, {{x, 1.f}}); };
        const SpecialReg tid[3] = {SpecialReg::TidX, SpecialReg::TidY, SpecialReg::TidZ};
        const SpecialReg ntid[3] = {SpecialReg::NtidX, SpecialReg::NtidY, SpecialReg::NtidZ};
        const SpecialReg ctaid[3] = {SpecialReg::CtaidX, SpecialReg::CtaidY, SpecialReg::CtaidZ};
        const SpecialReg nctaid[3] = {SpecialReg::NctaidX, SpecialReg::NctaidY, SpecialReg::NctaidZ};
        for (int i = 0; i < 3; ++i) {
            pick(tid[i], c.value(d[5 + size_t(i)][0]));
            pick(ntid[i], field(c, d[2], 5 * i, 5, 1));
            pick(ctaid[i], c.value(d[8 + size_t(i)][0]));
            pick(nctaid[i], field(c, d[3], 5 * i, 5, 1));
        }
        pick(SpecialReg::LaneId, laneIndex(c, d[1]));
        pick(SpecialReg::WarpId, c.value(d[4][0]));
        for (int v = 1; v <= 32; ++v) {
            std::vector<circuit::Term> down;
            for (int j = 0; j < 6; ++j) {
                int change = (v >> j & 1) - ((v - 1) >> j & 1);
                if (change != 0) down.push_back({o[0][size_t(j)], -2.f * float(change)});
            }
            c.step(first + 1, Linear{{{x, 1.f}}, double(-v)}, down);
        }
        c.release(x, first + 1);
    })[0];
}

}  // namespace qgpu::gpu::detail
