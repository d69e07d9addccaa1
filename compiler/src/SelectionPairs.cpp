// 64-bit integers: which 64-bit registers hold data whose high word matters, and the PTX operations on them
// as pairs of machine registers (PairSequences.cpp). A pair's low word is the register of the PTX name and
// its high word the register of the name with ".hi", so code that needs only the low word reads it as it
// reads any other 64-bit register.
#include "SequenceHelpers.h"
#include "Selector.h"

namespace qgpu::lowering {
namespace {

bool isReg64(const Operand& o) { return o.kind == Kind::Reg && isWideReg(o.name); }

// The 64-bit operations whose results depend on their operands' high words.
bool readsHighWords(const ptx::Instruction& in) {
    static const std::set<std::string> ops = {"setp", "popc", "clz", "shr",  "div",  "rem",
                                              "min",  "max",  "abs", "brev", "atom", "red"};
    return ops.count(in.parts[0]) || (in.parts[0] == "mul" && in.has("hi"));
}

}  // namespace

// Pointer parameters, generic and converted addresses, symbol addresses, and sums and differences of them
// (also Clang's `or` of an offset into an aligned pointer).
void Selector::findPointers() {
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& in : m_fn.body) {
            const auto& o = in.operands;
            if (o.size() < 2 || !isReg64(o[0]) || m_pointers.count(o[0].name)) continue;
            const std::string& op = in.parts[0];
            bool pointer = op == "cvta" || (op == "mov" && o[1].kind == Kind::Symbol);
            if (op == "ld" && in.has("param")) {
                auto it = m_paramIndex.find(o[1].name);
                pointer = it != m_paramIndex.end() && m_out.params[size_t(it->second)].isArray;
            }
            if (op == "add" || op == "sub" || op == "mov" || op == "selp" || op == "or")
                for (size_t i = 1; i < o.size() && i < 3; ++i) pointer |= isReg64(o[i]) && m_pointers.count(o[i].name);
            if (pointer) changed |= m_pointers.insert(o[0].name).second;
        }
    }
}

// 64-bit registers whose high word matters: what compares, right shifts, divisions, min/max, high products,
// stores, unpacking moves and conversions to float read, what those compute, and everything these are
// computed from. Pointers stay single registers (word addresses).
void Selector::findPairs() {
    auto mark = [&](const Operand& o) {
        return isReg64(o) && !m_pointers.count(o.name) && m_pairs.insert(o.name).second;
    };
    for (const auto& in : m_fn.body) {
        const auto& o = in.operands;
        const std::string& op = in.parts[0];
        bool wide = is64BitType(typeOf(in));
        if (wide && readsHighWords(in))
            for (const auto& x : o) mark(x);  // the result too, where it is 64 bits wide
        if (wide && op == "st" && o.size() > 1)
            for (const auto& x : vectorElements(o[1])) mark(x);
        bool toFloat = op == "cvt" && in.parts.size() > 2 && is64BitType(in.parts.back()) &&
                       in.parts[in.parts.size() - 2][0] == 'f';
        bool unpack = op == "mov" && o.size() > 1 && o[0].kind == Kind::Vector;
        if ((toFloat || unpack) && o.size() > 1) mark(o[1]);
    }
    for (bool changed = true; changed;) {
        changed = false;
        for (const auto& in : m_fn.body) {
            const auto& o = in.operands;
            if (o.empty() || !isReg64(o[0]) || !m_pairs.count(o[0].name)) continue;
            for (size_t i = 1; i < o.size(); ++i) changed |= mark(o[i]);
        }
    }
}

bool Selector::isPair(const Operand& o) const { return o.kind == Kind::Reg && m_pairs.count(o.name) > 0; }

Pair Selector::pairRegs(const std::string& name) { return {vreg(name), vreg(name + kHighWordSuffix)}; }

// A 64-bit operand's two words. A pointer or a 32-bit register has its value (a pointer's byte address) in
// one register; the high word is its sign.
PairB Selector::pairOperand(const Operand& o) {
    if (o.kind == Kind::Imm) return {imm(o.value), imm(int64_t(uint64_t(o.value) >> 32))};
    if (isPair(o)) return pairB(pairRegs(o.name));
    int lo = reg32(o);
    return {reg(lo), reg(lowering::op(*this, Opcode::Sra, lo, imm(31)))};
}

Pair Selector::pairIn(const Operand& o) {
    PairB b = pairOperand(o);
    return {inRegister(*this, b.lo), inRegister(*this, b.hi)};
}

void Selector::setPair(Pair rd, PairB value) {
    emit(Opcode::Mov, rd.lo, kZeroReg, value.lo);
    emit(Opcode::Mov, rd.hi, kZeroReg, value.hi);
}

// A PTX instruction that writes a pair.
void Selector::pairOperation(const ptx::Instruction& in) {
    const std::string& op = in.parts[0];
    const auto& o = in.operands;
    Pair rd = pairRegs(o[0].name);
    bool isSigned = typeOf(in)[0] == 's';
    if (op == "mov") return setPair(rd, pairOperand(o[1]));
    if (op == "cvt") return pairConvert(in, rd);
    if ((op == "mul" || op == "mad") && in.has("wide")) return wideProduct(in, rd);
    if (op == "add" || op == "sub") return addPair(*this, rd, pairIn(o[1]), pairOperand(o[2]), op == "sub");
    if (op == "mul" && in.has("lo")) return mulPair(*this, rd, pairIn(o[1]), pairOperand(o[2]));
    if (op == "mul" && in.has("hi")) return mulHighPair(*this, rd, pairIn(o[1]), pairIn(o[2]), isSigned);
    if (op == "mad" && in.has("lo")) {
        Pair product{temp(), temp()};
        mulPair(*this, product, pairIn(o[1]), pairOperand(o[2]));
        return addPair(*this, rd, product, pairOperand(o[3]), false);
    }
    if (op == "neg") return addPair(*this, rd, {kZeroReg, kZeroReg}, pairOperand(o[1]), true);
    if (op == "shl" || op == "shr") {
        Shift kind = op == "shl" ? Shift::Left : isSigned ? Shift::RightArith : Shift::Right;
        Pair a = pairIn(o[1]);
        return shiftPair(*this, rd, a, bOf(o[2]), kind);
    }
    if (op == "div" || op == "rem") return pairDivision(in, rd);
    pairBitwise(in, rd);
}

// div and rem: a routine per kind, called with the operands' four words.
void Selector::pairDivision(const ptx::Instruction& in, Pair rd) {
    bool isSigned = typeOf(in)[0] == 's', remainder = in.parts[0] == "rem";
    Pair a = pairIn(in.operands[1]), b = pairIn(in.operands[2]);
    auto body = [isSigned, remainder](Emitter& e, Pair d, const std::vector<int>& args) {
        dividePair(e, d, {args[0], args[1]}, {args[2], args[3]}, isSigned, remainder);
    };
    callPairRoutine(in.parts[0] + "." + typeOf(in), body, rd, {a.lo, a.hi, b.lo, b.hi});
}

// Logic, selects, min/max, abs and bit reversal: word by word, or a choice between whole pairs.
void Selector::pairBitwise(const ptx::Instruction& in, Pair rd) {
    const std::string& op = in.parts[0];
    const auto& o = in.operands;
    static const std::map<std::string, Opcode> logic = {{"and", Opcode::And}, {"or", Opcode::Or}, {"xor", Opcode::Xor}};
    if (auto it = logic.find(op); it != logic.end()) {
        Pair a = pairIn(o[1]);
        PairB b = pairOperand(o[2]);
        return setPair(
            rd, {reg(lowering::op(*this, it->second, a.lo, b.lo)), reg(lowering::op(*this, it->second, a.hi, b.hi))});
    }
    if (op == "not") {
        Pair a = pairIn(o[1]);
        return setPair(
            rd, {reg(lowering::op(*this, Opcode::Not, a.lo, {})), reg(lowering::op(*this, Opcode::Not, a.hi, {}))});
    }
    if (op == "brev") {
        Pair a = pairIn(o[1]), r{temp(), temp()};
        bitReverse(*this, r.lo, a.hi);
        bitReverse(*this, r.hi, a.lo);
        return setPair(rd, pairB(r));
    }
    auto choose = [&](int cond, Pair a, Pair b) {
        setPair(rd, {reg(sel(*this, cond, a.lo, reg(b.lo))), reg(sel(*this, cond, a.hi, reg(b.hi)))});
    };
    if (op == "selp") {
        Pair a = pairIn(o[1]), b = pairIn(o[2]);
        return choose(reg32(o[3]), a, b);
    }
    bool isSigned = typeOf(in)[0] == 's';
    if (op == "min" || op == "max") {
        Pair a = pairIn(o[1]), b = pairIn(o[2]);
        int less = comparePair(*this, "lt", a, pairB(b), isSigned);
        return op == "min" ? choose(less, a, b) : choose(less, b, a);
    }
    if (op == "abs") {
        Pair a = pairIn(o[1]), negated{temp(), temp()};
        addPair(*this, negated, {kZeroReg, kZeroReg}, pairB(a), true);
        return choose(lowering::op(*this, Opcode::SetLt, a.hi, imm(0)), negated, a);
    }
    fail("64-bit operation '" + in.opcode +
         "' is not supported: compute it in 32-bit int, or with +, -, *, /, %, "
         "shifts, compares and logic on long long");
}

// cvt into a pair from an integer: from another 64-bit type its bits, from a narrower one its sign or zero
// extension (from float: wideConvert).
void Selector::pairConvert(const ptx::Instruction& in, Pair rd) {
    const std::string& from = in.parts.back();
    if (is64BitType(from)) return setPair(rd, pairOperand(in.operands[1]));
    int bits = bitsOf(from), value = reg32(in.operands[1]);
    if (bits < 32) value = extend(value, bits, from[0] == 's');
    B high = from[0] == 's' ? reg(lowering::op(*this, Opcode::Sra, value, imm(31))) : imm(0);
    setPair(rd, {reg(value), high});
}

// mul.wide and mad.wide: the full 64-bit product of two 32-bit values (plus a 64-bit addend).
void Selector::wideProduct(const ptx::Instruction& in, Pair rd) {
    const auto& o = in.operands;
    int a = reg32(o[1]);
    B b = bOf(o[2]);
    Pair product{lowering::op(*this, Opcode::Mul, a, b), temp()};
    mulHigh(*this, product.hi, a, b, typeOf(in)[0] == 's');
    if (in.parts[0] == "mad") return addPair(*this, rd, product, pairOperand(o[3]), false);
    setPair(rd, pairB(product));
}

// setp on 64-bit values of which one is a pair.
void Selector::pairCompare(const ptx::Instruction& in) {
    const auto& o = in.operands;
    Pair a = pairIn(o[1]);
    PairB b = pairOperand(o[2]);
    int result = comparePair(*this, in.parts[1], a, b, typeOf(in)[0] == 's');
    emit(Opcode::Mov, vreg(o[0].name), kZeroReg, reg(result));
}

// popc.b64 and clz.b64: 32-bit results from both words.
void Selector::pairCount(const ptx::Instruction& in) {
    Pair a = pairIn(in.operands[1]);
    int low = temp(), high = temp(), rd = vreg(in.operands[0].name);
    if (in.parts[0] == "popc") {
        populationCount(*this, low, a.lo);
        populationCount(*this, high, a.hi);
        return emit(Opcode::Add, rd, low, reg(high));
    }
    leadingZeros(*this, low, a.lo);
    leadingZeros(*this, high, a.hi);
    int highZero = lowering::op(*this, Opcode::SetEq, a.hi, imm(0));
    emit(Opcode::Sel, rd, lowering::op(*this, Opcode::Add, low, imm(32)), reg(high), highZero);
}

// ld and st of 64-bit values (also .v2/.v4): two words each, the low one first. A register that is not a
// pair loads its low word only; a pointer is stored as its byte address and sign, and read back as words.
void Selector::pairMemory(const ptx::Instruction& in, int base, uint32_t offset, bool shared) {
    bool load = in.parts[0] == "ld";
    std::vector<Operand> elements = vectorElements(load ? in.operands.at(0) : in.operands.at(1));
    for (size_t i = 0; i < elements.size(); ++i) {
        const Operand& e = elements[i];
        uint32_t at = offset + 2 * uint32_t(i);
        if (load) {
            if (e.kind != Kind::Reg) continue;
            emit(shared ? Opcode::LdShared : Opcode::LdGlobal, vreg(e.name), base, imm(at));
            if (isPair(e))
                emit(shared ? Opcode::LdShared : Opcode::LdGlobal, vreg(e.name + kHighWordSuffix), base, imm(at + 1));
            else if (wideOf(e).rep == Rep::Word)  // a pointer read back: memory holds its byte address
                emit(Opcode::Sra, vreg(e.name), vreg(e.name), imm(2));
            continue;
        }
        Pair value = pairIn(e);
        for (auto [word, r] : {std::pair{at, value.lo}, std::pair{at + 1, value.hi}}) {
            VInst v = located(shared ? Opcode::StShared : Opcode::StGlobal);
            v.rs1 = base, v.imm = word, v.rs2 = r;
            block().body.push_back(v);
        }
    }
}

// mov.b64 %rd, {%lo, %hi} and mov.b64 {%lo, %hi}, %rd (64-bit shuffles move a value as its two words).
void Selector::packedPair(const ptx::Instruction& in, bool pack, const std::vector<Operand>& words) {
    const auto& o = in.operands;
    if (pack) {
        int lo = reg32(words[0]);
        if (!isPair(o[0])) return emit(Opcode::Mov, vreg(o[0].name), kZeroReg, reg(lo));
        return setPair(pairRegs(o[0].name), {reg(lo), reg(reg32(words[1]))});
    }
    PairB value = pairOperand(o[1]);
    for (size_t i = 0; i < 2; ++i)
        if (words[i].kind == Kind::Reg) emit(Opcode::Mov, vreg(words[i].name), kZeroReg, i ? value.hi : value.lo);
}

}  // namespace qgpu::lowering
