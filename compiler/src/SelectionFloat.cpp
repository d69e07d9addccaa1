// Float instructions (f32): each becomes integer machine code (FloatSequences.h). The long ones are
// routines, emitted once per kernel after its own code and entered from every use: the caller copies the
// arguments, sets the routine's return index and jumps; the routine ends in a chain of compares that jumps
// back to the block after the caller's jump.
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
    if (in.has("sat")) fail("." + op + ".sat (clamping to [0, 1]) is not supported: clamp with fminf/fmaxf");
    if (in.has("approx") || in.has("full") || op == "rcp" || op == "ex2" || op == "lg2" || op == "sin" || op == "cos" ||
        op == "rsqrt" || op == "tanh")
        fail(
            "approximate float instructions (-ffast-math, __expf, __fdividef, ...) are not supported: the "
            "machine computes every float result exactly rounded; use +, -, *, /, sqrtf, fmaf and the functions in "
            "docs/qgpu-cuda.md");
    FloatMode mode{roundingOf(in).value_or(Rounding::Nearest), in.has("ftz")};
    if (op == "neg" || op == "abs") {
        if (o.size() != 2) fail("expected 2 operands");
        return floatSign(*this, vreg(o[0].name), reg32(o[1]), op == "abs", mode.flush);
    }
    if (op == "fma" || op == "mad") {  // mad.rn.f32 is fma.rn.f32
        if (o.size() != 4) fail("expected 4 operands");
        int a = reg32(o[1]), b = reg32(o[2]), c = reg32(o[3]);
        return callRoutine("fma.f32" + suffix(mode),
                           [mode](Emitter& e, int rd, const std::vector<int>& args) {
                               floatFusedMultiplyAdd(e, rd, args[0], args[1], args[2], mode);
                           },
                           vreg(o[0].name), {a, b, c});
    }
    if (op == "sqrt") {
        if (o.size() != 2) fail("expected 2 operands");
        int a = reg32(o[1]);
        return callRoutine(
            "sqrt.f32" + suffix(mode),
            [mode](Emitter& e, int rd, const std::vector<int>& args) { floatSquareRoot(e, rd, args[0], mode); },
            vreg(o[0].name), {a});
    }
    if (o.size() != 3) fail("expected 3 operands");
    if (op == "min" || op == "max") {
        int a = reg32(o[1]);
        B b = bOf(o[2]);
        return floatMinMax(*this, vreg(o[0].name), a, b, op == "max", mode.flush);
    }
    if (op != "add" && op != "sub" && op != "mul" && op != "div")
        fail("unsupported float instruction '" + in.opcode + "'");
    int a = reg32(o[1]), b = reg32(o[2]);
    if (op == "sub") {  // a - b is a + (-b) exactly, NaNs included
        int negated = temp();
        emit(Opcode::Xor, negated, b, imm(0x80000000u));
        b = negated;
    }
    using Body = void (*)(Emitter&, int, int, int, FloatMode);
    Body body = op == "mul" ? &floatMultiply : op == "div" ? &floatDivide : &floatAdd;
    callRoutine((op == "sub" ? "add" : op) + ".f32" + suffix(mode),
                [body, mode](Emitter& e, int rd, const std::vector<int>& args) { body(e, rd, args[0], args[1], mode); },
                vreg(o[0].name), {a, b});
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
        if (!rounding || in.has("sat")) fail("unsupported conversion '" + in.opcode + "'");
        int a = reg32(o[1]);
        Rounding r = *rounding;
        return callRoutine(
            "cvt.f32.f32" + suffix({r, flush}),
            [r, flush](Emitter& e, int d, const std::vector<int>& args) { roundToIntegral(e, d, args[0], r, flush); },
            rd, {a});
    }
    bool toFloat = to == "f32";
    const std::string& integer = toFloat ? from : to;
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
