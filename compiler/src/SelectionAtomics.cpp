// Atomics other than the machine's integer add: a routine that lets the active lanes of the warp act one
// after another in ascending lane order, each reading the word, computing its new value and writing it.
// A warp runs until it exits or waits at a barrier (docs/isa.md), so no other warp comes between a lane's
// read and its write: each lane's update is atomic, as CUDA's are, in the order the machine's own atomic
// add uses.
#include <functional>
#include <map>

#include "FloatSequences.h"
#include "SequenceHelpers.h"
#include "Selector.h"

namespace qgpu::lowering {
namespace {

AtomicUpdate aluUpdate(Opcode o) {
    return
        [o](Emitter& e, int updated, int old, const std::vector<int>& args) { e.emit(o, updated, old, reg(args[1])); };
}

// atom.inc: old >= limit (unsigned) ? 0 : old + 1; atom.dec: old == 0 || old > limit ? limit : old - 1.
void increment(Emitter& e, int updated, int old, const std::vector<int>& args) {
    int wraps = op(e, Opcode::SetGeU, old, reg(args[1])), next = op(e, Opcode::Add, old, imm(1));
    e.emit(Opcode::Sel, updated, kZeroReg, reg(next), wraps);
}
void decrement(Emitter& e, int updated, int old, const std::vector<int>& args) {
    int zero = op(e, Opcode::SetEq, old, imm(0)), above = op(e, Opcode::SetGtU, old, reg(args[1]));
    int wraps = op(e, Opcode::Or, zero, reg(above)), previous = op(e, Opcode::Sub, old, imm(1));
    e.emit(Opcode::Sel, updated, args[1], reg(previous), wraps);
}
// atom.cas: old == compare ? value : old.
void compareAndSwap(Emitter& e, int updated, int old, const std::vector<int>& args) {
    int equal = op(e, Opcode::SetEq, old, reg(args[1]));
    e.emit(Opcode::Sel, updated, args[2], reg(old), equal);
}

// The update of an integer atom or red instruction (by its operation and whether it is signed), or null.
AtomicUpdate integerUpdate(const std::string& operation, bool isSigned) {
    static const std::map<std::string, Opcode> alu = {{"and", Opcode::And}, {"or", Opcode::Or}, {"xor", Opcode::Xor}};
    if (auto it = alu.find(operation); it != alu.end()) return aluUpdate(it->second);
    if (operation == "min") return aluUpdate(isSigned ? Opcode::Min : Opcode::MinU);
    if (operation == "max") return aluUpdate(isSigned ? Opcode::Max : Opcode::MaxU);
    if (operation == "exch")
        return [](Emitter& e, int updated, int, const std::vector<int>& args) {
            e.emit(Opcode::Mov, updated, kZeroReg, reg(args[1]));
        };
    if (operation == "inc") return increment;
    if (operation == "dec") return decrement;
    if (operation == "cas") return compareAndSwap;
    return nullptr;
}

// The active lanes of the warp one after another in ascending lane order, each running `act`.
void laneByLane(Emitter& e, int lanes, const std::function<void()>& act) {
    int lane = e.temp(), turn = mov(e, imm(0));
    e.emit(Opcode::Sreg, lane, kZeroReg, imm(int64_t(SpecialReg::LaneId)));
    int loop = e.newBlock(), mine = e.newBlock(), next = e.newBlock(), done = e.newBlock();
    e.jump(loop);
    e.enter(loop);
    e.branch(op(e, Opcode::SetEq, lane, reg(turn)), mine, next);
    e.enter(mine);
    act();
    e.jump(next);
    e.enter(next);
    e.emit(Opcode::Add, turn, turn, imm(1));
    e.branch(op(e, Opcode::SetLtU, turn, imm(lanes)), loop, done);
    e.enter(done);
}

// The update of a 64-bit atom or red instruction, or null. args: the address, then the operands' words.
PairAtomicUpdate pairUpdate(const std::string& operation, bool isSigned) {
    auto value = [](const std::vector<int>& a) { return PairB{reg(a[1]), reg(a[2])}; };
    auto choose = [](Emitter& e, Pair updated, int cond, Pair a, Pair b) {
        e.emit(Opcode::Sel, updated.lo, a.lo, reg(b.lo), cond);
        e.emit(Opcode::Sel, updated.hi, a.hi, reg(b.hi), cond);
    };
    if (operation == "add")
        return
            [value](Emitter& e, Pair u, Pair old, const std::vector<int>& a) { addPair(e, u, old, value(a), false); };
    if (operation == "exch")
        return [](Emitter& e, Pair u, Pair, const std::vector<int>& a) { copy(e, u.lo, a[1]), copy(e, u.hi, a[2]); };
    if (operation == "cas")
        return [value, choose](Emitter& e, Pair u, Pair old, const std::vector<int>& a) {
            choose(e, u, comparePair(e, "eq", old, value(a), false), {a[3], a[4]}, old);
        };
    if (operation == "min" || operation == "max")
        return [=](Emitter& e, Pair u, Pair old, const std::vector<int>& a) {
            int less = comparePair(e, "lt", {a[1], a[2]}, pairB(old), isSigned);
            operation == "min" ? choose(e, u, less, {a[1], a[2]}, old) : choose(e, u, less, old, {a[1], a[2]});
        };
    static const std::map<std::string, Opcode> logic = {{"and", Opcode::And}, {"or", Opcode::Or}, {"xor", Opcode::Xor}};
    if (auto it = logic.find(operation); it != logic.end())
        return [o = it->second](Emitter& e, Pair u, Pair old, const std::vector<int>& a) {
            e.emit(o, u.lo, old.lo, reg(a[1]));
            e.emit(o, u.hi, old.hi, reg(a[2]));
        };
    return nullptr;
}

}  // namespace

void Selector::serializedAtomic(const std::string& name, bool shared, const AtomicUpdate& update, int rd,
                                const std::vector<int>& args) {
    int lanes = m_spec.lanesPerWarp;
    Opcode load = shared ? Opcode::LdShared : Opcode::LdGlobal, store = shared ? Opcode::StShared : Opcode::StGlobal;
    auto body = [=](Emitter& e, int old, const std::vector<int>& a) {
        laneByLane(e, lanes, [&] {
            e.emit(load, old, a[0], imm(0));
            int updated = e.temp();
            update(e, updated, old, a);
            e.emit(store, kZeroReg, a[0], reg(updated));
        });
    };
    callRoutine(name, body, rd, args);
}

// A 64-bit atom or red: the serialized routine on the two words of the element.
void Selector::pairAtomic(const ptx::Instruction& in, int address, bool shared) {
    const auto& o = in.operands;
    bool reduction = in.parts[0] == "red";
    std::string operation;
    for (const char* name : {"add", "and", "or", "xor", "min", "max", "exch", "cas"})
        if (in.has(name)) operation = name;
    PairAtomicUpdate update = pairUpdate(operation, typeOf(in) == "s64");
    if (!update)
        fail("this 64-bit atomic (" + in.opcode + ") is not supported: add, exch, cas, min, max, and, or and xor are");
    std::vector<int> args = {address};
    for (size_t i = reduction ? 1 : 2; i < o.size(); ++i) {
        Pair v = pairIn(o[i]);
        args.insert(args.end(), {v.lo, v.hi});
    }
    int lanes = m_spec.lanesPerWarp;
    Opcode load = shared ? Opcode::LdShared : Opcode::LdGlobal, store = shared ? Opcode::StShared : Opcode::StGlobal;
    auto body = [=](Emitter& e, Pair old, const std::vector<int>& a) {
        int high = op(e, Opcode::Add, a[0], imm(1));  // the high word's address
        laneByLane(e, lanes, [&] {
            e.emit(load, old.lo, a[0], imm(0));
            e.emit(load, old.hi, high, imm(0));
            Pair updated{e.temp(), e.temp()};
            update(e, updated, old, a);
            e.emit(store, kZeroReg, a[0], reg(updated.lo));
            e.emit(store, kZeroReg, high, reg(updated.hi));
        });
    };
    Pair rd = !reduction && isPair(o[0]) ? pairRegs(o[0].name) : Pair{reduction ? temp() : vreg(o[0].name), temp()};
    std::string name = std::string("atom.") + (shared ? "shared." : "global.") + operation + "." + typeOf(in);
    callPairRoutine(name, body, rd, args);
}

void Selector::integerAtomic(const ptx::Instruction& in, int rd, int address, bool shared) {
    const auto& o = in.operands;
    bool reduction = in.parts[0] == "red";
    std::string operation;
    for (const char* name : {"and", "or", "xor", "min", "max", "exch", "inc", "dec", "cas"})
        if (in.has(name)) operation = name;
    std::string t = typeOf(in);
    AtomicUpdate update = integerUpdate(operation, t == "s32");
    if (!update || (t != "s32" && t != "u32" && t != "b32"))
        fail("this atomic (" + in.opcode +
             ") is not supported: the machine's atomics are add, sub, exch, cas, "
             "min, max, inc, dec, and, or and xor on 32-bit int and unsigned, and add and exch on float");
    std::vector<int> args = {address};
    for (size_t i = reduction ? 1 : 2; i < o.size(); ++i) args.push_back(reg32(o[i]));
    if (args.size() != (operation == "cas" ? 3u : 2u)) fail("'" + in.opcode + "' needs its operands");
    std::string name = std::string("atom.") + (shared ? "shared." : "global.") + operation + "." + t;
    serializedAtomic(name, shared, update, rd, args);
}

void Selector::floatAtomicAdd(int rd, int address, int value, bool shared) {
    AtomicUpdate add = [](Emitter& e, int updated, int old, const std::vector<int>& args) {
        floatAdd(e, updated, old, args[1], {});
    };
    serializedAtomic(shared ? "atom.shared.add.f32" : "atom.global.add.f32", shared, add, rd, {address, value});
}

}  // namespace qgpu::lowering
