// Float instructions (f32): each becomes integer machine code (FloatSequences.h). The long ones are
// routines, emitted once per kernel after its own code and entered from every use: the caller copies the
// arguments, sets the routine's return index and jumps; the routine ends in a chain of compares that jumps
// back to the block after the caller's jump.
#include <map>

#include "FloatSequences.h"
#include "SequenceHelpers.h"
#include "Selector.h"

namespace qgpu::lowering {
namespace {

std::optional<Rounding> roundingOf(const ptx::Instruction& in) {
    static const std::pair<const char*, Rounding> names[] = {
        {"rn", Rounding::Nearest}, {"rni", Rounding::Nearest}, {"rz", Rounding::Zero}, {"rzi", Rounding::Zero},
        {"rm", Rounding::Down},    {"rmi", Rounding::Down},    {"rp", Rounding::Up},   {"rpi", Rounding::Up}};
    for (const auto& [name, rounding] : names)
        if (in.has(name)) return rounding;
    return std::nullopt;
}

std::string suffix(FloatMode mode) {
    static const char* names[] = {".rn", ".rz", ".rm", ".rp"};
    return std::string(names[int(mode.rounding)]) + (mode.flush ? ".ftz" : "");
}

}  // namespace

bool Selector::isFloatOperation(const ptx::Instruction& in) {
    const std::string& op = in.parts[0];
    bool f32 = false;
    for (size_t i = 1; i < in.parts.size(); ++i) f32 = f32 || in.parts[i] == "f32";
    return f32 && op != "ld" && op != "st" && op != "atom" && op != "red";
}

void Selector::floatOperation(const ptx::Instruction& in) {
    const std::string& op = in.parts[0];
    const auto& o = in.operands;
    if (op == "mov" || op == "selp") {  // bits move as they are
        ptx::Instruction bits = in;
        bits.parts.back() = "b32";
        return select(bits);
    }
    if (op == "setp") return floatCompare(in);
    if (op == "cvt") return floatConvert(in);
    if (op == "testp") return floatTest(in);
    static const std::map<std::string, std::string> approximations = {
        {"ex2", "exp2f"}, {"lg2", "log2f"}, {"sin", "sinf"}, {"cos", "cosf"}, {"rsqrt", "rsqrtf"}, {"tanh", "tanhf"}};
    if (auto it = approximations.find(op); it != approximations.end())
        fail("the approximate float instruction '" + in.opcode + "' is not supported: call " + it->second +
             "(), which the machine computes within CUDA's bound for it (docs/qgpu-cuda.md)");
    if (in.has("approx") && op != "div" && op != "rcp" && op != "sqrt")
        fail("the approximate float instruction '" + in.opcode +
             "' is not supported: use +, -, *, /, sqrtf, fmaf and the functions in docs/qgpu-cuda.md");
    bool flush = in.has("ftz");
    if (o.empty()) fail("expected operands");
    int rd = vreg(o[0].name);
    if (op == "neg" || op == "abs") {
        if (o.size() != 2) fail("expected 2 operands");
        return floatSign(*this, rd, reg32(o[1]), op == "abs", flush);
    }
    if (op == "copysign") {
        if (o.size() != 3) fail("expected 3 operands");
        return floatCopySign(*this, rd, reg32(o[1]), reg32(o[2]));
    }
    if (op == "min" || op == "max") {
        if (o.size() != 3) fail("expected 3 operands");
        return floatMinMax(*this, rd, reg32(o[1]), bOf(o[2]), {op == "max", flush, in.has("NaN")});
    }
    floatArithmetic(in, rd);
    if (in.has("sat")) floatSaturate(*this, rd, rd);
}

// The operations that are routines: add, sub, mul, fma/mad, div, rcp, sqrt.
void Selector::floatArithmetic(const ptx::Instruction& in, int rd) {
    const std::string& op = in.parts[0];
    FloatMode mode{roundingOf(in).value_or(Rounding::Nearest), in.has("ftz")};
    const auto& o = in.operands;
    size_t inputs = op == "fma" || op == "mad" ? 3 : op == "sqrt" || op == "rcp" ? 1 : 2;
    if (op != "add" && op != "sub" && op != "mul" && op != "div" && op != "fma" && op != "mad" && op != "sqrt" &&
        op != "rcp")
        fail("unsupported float instruction '" + in.opcode + "'");
    if (o.size() != inputs + 1) fail("expected " + std::to_string(inputs + 1) + " operands");
    std::vector<int> args;
    for (size_t i = 1; i <= inputs; ++i) args.push_back(reg32(o[i]));
    if (op == "rcp") args.insert(args.begin(), lowering::mov(*this, imm(0x3f800000u)));       // 1 / a, rounded as asked
    if (op == "sub") args[1] = lowering::op(*this, Opcode::Xor, args[1], imm(0x80000000u));   // a + (-b), exactly
    std::string kind = op == "sub" ? "add" : op == "rcp" ? "div" : op == "mad" ? "fma" : op;  // mad.rn is fma.rn
    // div.full and div.approx (and rcp.approx, sqrt.approx) promise at most 2 ulp: the machine gives the
    // correctly rounded result, except that div.approx gives 0 for a divisor of magnitude 2^126 or more, as
    // the PTX ISA defines it.
    if (in.has("approx") || in.has("full")) mode.rounding = Rounding::Nearest;
    if (op == "div" && in.has("approx")) args[0] = zeroForHugeDivisor(args[0], args[1]);
    if (m_addMulThroughFma && kind == "add") args.insert(args.begin() + 1, lowering::mov(*this, imm(0x3f800000u)));
    if (m_addMulThroughFma && kind == "mul")  // an exact zero product keeps its sign in every rounding
        args.push_back(lowering::mov(*this, imm(mode.rounding == Rounding::Down ? 0u : 0x80000000u)));
    if (m_addMulThroughFma && (kind == "add" || kind == "mul")) kind = "fma";
    using Body = void (*)(Emitter&, int, const std::vector<int>&, FloatMode);
    static const std::map<std::string, Body> bodies = {
        {"add", [](Emitter& e, int d, const std::vector<int>& a, FloatMode m) { floatAdd(e, d, a[0], a[1], m); }},
        {"mul", [](Emitter& e, int d, const std::vector<int>& a, FloatMode m) { floatMultiply(e, d, a[0], a[1], m); }},
        {"div", [](Emitter& e, int d, const std::vector<int>& a, FloatMode m) { floatDivide(e, d, a[0], a[1], m); }},
        {"fma", [](Emitter& e, int d, const std::vector<int>& a,
                   FloatMode m) { floatFusedMultiplyAdd(e, d, a[0], a[1], a[2], m); }},
        {"sqrt", [](Emitter& e, int d, const std::vector<int>& a, FloatMode m) { floatSquareRoot(e, d, a[0], m); }}};
    Body body = bodies.at(kind);
    callRoutine(
        kind + ".f32" + suffix(mode),
        [body, mode](Emitter& e, int d, const std::vector<int>& a) { body(e, d, a, mode); }, rd, args);
}

// The dividend div.approx divides, as a * (1 / b) with the reciprocal flushed to 0 where |b| >= 2^126: a zero
// of a's sign there (NaN where a is infinite or NaN), else a.
int Selector::zeroForHugeDivisor(int dividend, int divisor) {
    auto magnitude = [&](int x) { return lowering::op(*this, Opcode::And, x, imm(0x7fffffffu)); };
    int huge = lowering::op(*this, Opcode::SetGeU, magnitude(divisor), imm(0x7e800000u));  // 2^126
    int finite = lowering::op(*this, Opcode::SetLtU, magnitude(dividend), imm(0x7f800000u));
    int zero = lowering::op(*this, Opcode::And, dividend, imm(0x80000000u));
    int replaced = lowering::sel(*this, finite, zero, imm(kCanonicalNan));  // infinity * 0 is NaN
    return lowering::sel(*this, huge, replaced, reg(dividend));
}

void Selector::floatTest(const ptx::Instruction& in) {
    static const std::map<std::string, FloatClass> classes = {
        {"finite", FloatClass::Finite}, {"infinite", FloatClass::Infinite},
        {"number", FloatClass::Number}, {"notanumber", FloatClass::NotANumber},
        {"normal", FloatClass::Normal}, {"subnormal", FloatClass::Subnormal}};
    const auto& o = in.operands;
    auto it = classes.find(in.parts.at(1));
    if (it == classes.end() || o.size() != 2) fail("unsupported float test '" + in.opcode + "'");
    lowering::floatTest(*this, vreg(o[0].name), reg32(o[1]), it->second);
}

void Selector::floatCompare(const ptx::Instruction& in) {
    static const std::map<std::string, FloatCompare> compares = {
        {"eq", FloatCompare::Eq},   {"ne", FloatCompare::Ne},   {"lt", FloatCompare::Lt},   {"le", FloatCompare::Le},
        {"gt", FloatCompare::Gt},   {"ge", FloatCompare::Ge},   {"equ", FloatCompare::Equ}, {"neu", FloatCompare::Neu},
        {"ltu", FloatCompare::Ltu}, {"leu", FloatCompare::Leu}, {"gtu", FloatCompare::Gtu}, {"geu", FloatCompare::Geu},
        {"num", FloatCompare::Num}, {"nan", FloatCompare::Nan}};
    const auto& o = in.operands;
    auto it = compares.find(in.parts.at(1));
    if (it == compares.end() || o.size() != 3) fail("unsupported float comparison '" + in.opcode + "'");
    if (in.parts.size() > 3 + size_t(in.has("ftz"))) fail("compound predicate compares are not supported");
    int a = reg32(o[1]);
    B b = bOf(o[2]);
    lowering::floatCompare(*this, vreg(o[0].name), a, b, it->second, in.has("ftz"));
}

void Selector::floatConvert(const ptx::Instruction& in) {
    const auto& o = in.operands;
    if (o.size() != 2) fail("expected 2 operands");
    const std::string &to = in.parts[in.parts.size() - 2], &from = in.parts.back();
    std::optional<Rounding> rounding = roundingOf(in);
    bool flush = in.has("ftz");
    int rd = vreg(o[0].name);
    if (to == "f32" && from == "f32") {
        int a = reg32(o[1]);
        if (!rounding) {  // cvt.sat.f32.f32 (__saturatef)
            if (!in.has("sat")) fail("unsupported conversion '" + in.opcode + "'");
            floatSaturate(*this, rd, a);
            if (!flush) return;  // .ftz: a positive subnormal (the only kind left) becomes +0
            int tiny = lowering::op(*this, Opcode::SetLtU, rd, imm(0x00800000u));
            return emit(Opcode::Sel, rd, kZeroReg, reg(rd), tiny);
        }
        Rounding r = *rounding;
        callRoutine(
            "cvt.f32.f32" + suffix({r, flush}),
            [r, flush](Emitter& e, int d, const std::vector<int>& args) { roundToIntegral(e, d, args[0], r, flush); },
            rd, {a});
        if (in.has("sat")) floatSaturate(*this, rd, rd);
        return;
    }
    bool toFloat = to == "f32";
    const std::string& integer = toFloat ? from : to;
    if (is64BitType(integer)) return wideConvert(in, toFloat);
    if (integer != "s32" && integer != "u32" && !(toFloat && bitsOf(integer) < 32))
        fail("conversion between float and ." + integer + " is not supported: convert through int");
    if (!rounding) fail("a conversion without a rounding modifier: '" + in.opcode + "'");
    bool isSigned = integer[0] == 's';
    Rounding r = *rounding;
    int a = isWideReg(o[1].name) ? asByte(o[1]) : reg32(o[1]);
    if (toFloat && bitsOf(integer) < 32) a = extend(a, bitsOf(integer), isSigned);
    std::string key = "cvt." + to + "." + (toFloat ? std::string(isSigned ? "s32" : "u32") : from) + suffix({r, flush});
    callRoutine(key,
                [toFloat, isSigned, r, flush](Emitter& e, int d, const std::vector<int>& args) {
                    if (toFloat) return intToFloat(e, d, args[0], isSigned, r);
                    floatToInt(e, d, args[0], isSigned, r, flush);
                },
                rd, {a});
    if (toFloat && in.has("sat")) floatSaturate(*this, rd, rd);  // to an integer, cvt saturates anyway
}

// Conversions between float and 64-bit integers: to float a routine, to an integer a truncation (after a
// rounding to an integral float for .rni/.rmi/.rpi).
void Selector::wideConvert(const ptx::Instruction& in, bool toFloat) {
    const auto& o = in.operands;
    const std::string& integer = toFloat ? in.parts.back() : in.parts[in.parts.size() - 2];
    bool isSigned = integer[0] == 's', flush = in.has("ftz");
    std::optional<Rounding> rounding = roundingOf(in);
    if (!rounding) fail("a conversion without a rounding modifier: '" + in.opcode + "'");
    Rounding r = *rounding;
    if (toFloat) {
        Pair a = pairIn(o[1]);
        std::string key = "cvt.f32." + integer + suffix({r, false});
        auto body = [isSigned, r](Emitter& e, int d, const std::vector<int>& args) {
            pairToFloat(e, d, {args[0], args[1]}, isSigned, r);
        };
        callRoutine(key, body, vreg(o[0].name), {a.lo, a.hi});
        if (in.has("sat")) floatSaturate(*this, vreg(o[0].name), vreg(o[0].name));
        return;
    }
    int a = reg32(o[1]);
    if (r != Rounding::Zero) {
        int integral = temp();
        callRoutine(
            "cvt.f32.f32" + suffix({r, flush}),
            [r, flush](Emitter& e, int d, const std::vector<int>& args) { roundToIntegral(e, d, args[0], r, flush); },
            integral, {a});
        a = integral;
    }
    Pair rd = isPair(o[0]) ? pairRegs(o[0].name) : Pair{vreg(o[0].name), temp()};
    floatToPair(*this, rd, a, isSigned);
}

void Selector::callRoutine(const std::string& name, RoutineBody body, int rd, const std::vector<int>& args) {
    Routine& r = m_routines[name];
    if (r.entry < 0) {
        r.body = std::move(body);
        r.entry = newBlock();
        r.result = temp();
        r.returnIndex = temp();
        for (size_t i = 0; i < args.size(); ++i) r.args.push_back(temp());
    }
    for (size_t i = 0; i < args.size(); ++i) copy(*this, r.args[i], args[i]);
    emit(Opcode::Mov, r.returnIndex, kZeroReg, imm(int64_t(r.returns.size())));
    r.returns.push_back(newBlock());
    jump(r.entry);
    m_cur = r.returns.back();
    copy(*this, rd, r.result);
}

void Selector::callPairRoutine(const std::string& name, PairRoutineBody body, Pair rd, std::vector<int> args) {
    args.push_back(kZeroReg);  // the high word's register
    RoutineBody words = [body](Emitter& e, int d, const std::vector<int>& a) { body(e, {d, a.back()}, a); };
    callRoutine(name, words, rd.lo, args);
    copy(*this, rd.hi, m_routines.at(name).args.back());
}

void Selector::emitRoutines() {
    m_in = nullptr;  // a routine's code belongs to no one line
    for (auto& [name, r] : m_routines) {
        m_cur = r.entry;
        r.body(*this, r.result, r.args);
        for (size_t i = 0; i + 1 < r.returns.size(); ++i) {
            int next = newBlock();
            branch(op(*this, Opcode::SetEq, r.returnIndex, imm(int64_t(i))), r.returns[i], next);
            m_cur = next;
        }
        jump(r.returns.back());
    }
}

}  // namespace qgpu::lowering
