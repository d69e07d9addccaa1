#include "InstructionSelection.h"

#include "Sequences.h"

#include <llvm/Demangle/Demangle.h>

#include <cctype>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "qgpu/core/Diagnostic.h"

namespace qgpu::lowering {
namespace {

using ptx::Operand;
using Kind = ptx::Operand::Kind;

// How a 64-bit PTX register is held in a 32-bit machine register. Addresses are bytes in PTX but words
// on the machine: a Word register holds bytes / 4, a Byte register the low 32 bits of the value.
enum class Rep { Byte, Word };
enum class Space { Unknown, Global, Shared, Mixed };

struct Wide {
    Rep rep = Rep::Byte;
    Space space = Space::Unknown;
};

bool isWideReg(const std::string& name) { return name.rfind("%rd", 0) == 0 || name.rfind("%SP", 0) == 0; }

bool mentionsFloat(const ptx::Instruction& in) {
    for (const auto& p : in.parts)
        if (p == "f16" || p == "f32" || p == "f64" || p == "bf16" || p == "f16x2") return true;
    return false;
}

std::string typeOf(const ptx::Instruction& in) { return in.parts.size() > 1 ? in.parts.back() : ""; }

Space merge(Space a, Space b) {
    if (a == Space::Unknown) return b;
    if (b == Space::Unknown || a == b) return a;
    return Space::Mixed;
}

class Selector : private Emitter {
public:
    Selector(const ptx::Module& module, const ptx::Function& fn, const std::vector<std::string>& paramNames,
             const std::string& cudaFile, const MachineSpec& spec)
        : m_module(module), m_fn(fn), m_cudaFile(cudaFile), m_spec(spec) {
        placeShared();
        describeParams(paramNames);
        inferWideRegisters();
        findWideValues();
        findConstants();
    }

    Selection run() {
        m_cur = newBlock();
        for (size_t i = 0; i < m_fn.body.size(); ++i) {
            for (const auto& [label, index] : m_fn.labels)
                if (index == i) enterLabel(label);
            m_in = &m_fn.body[i];
            statement(*m_in);
        }
        for (const auto& [label, index] : m_fn.labels)
            if (index == m_fn.body.size()) enterLabel(label);
        if (!block().terminated) terminate(Opcode::Exit);
        for (auto& b : m_out.program.blocks)
            if (!b.terminated) {  // an unreachable block opened after a jump
                b.term.op = Opcode::Exit;
                b.terminated = true;
            }
        m_out.program.vregCount = m_nextVreg;
        return std::move(m_out);
    }

private:
    // ---- errors -------------------------------------------------------------------------------------
    [[noreturn]] void fail(const std::string& msg) const {
        Diagnostic d{m_cudaFile, 0, 0, msg};
        if (m_in) {
            d.line = m_in->cudaLoc.line;
            d.column = m_in->cudaLoc.column;
            d.message = msg + " (PTX line " + std::to_string(m_in->ptxLine) + ": " + m_in->opcode + ")";
        }
        throw DiagnosticError(d);
    }

    // ---- module facts -------------------------------------------------------------------------------
    void placeShared() {
        for (const auto& s : m_module.shared) {
            if (s.bytes > (int64_t(1) << 24))  // far past any machine: keeps the word counts below in int
                throw DiagnosticError(Diagnostic{m_cudaFile, 0, 0,
                                                 "__shared__ array " + s.name + " has " + std::to_string(s.bytes) +
                                                     " bytes but a thread block has " +
                                                     std::to_string(m_spec.sharedWords * 4) + "; make it smaller"});
            int words = int((s.bytes + 3) / 4);
            m_out.shared.push_back({s.name, m_out.sharedWords, words});
            m_out.sharedWords += words;
        }
        if (m_out.sharedWords > m_spec.sharedWords) {
            std::string names;
            for (const auto& s : m_out.shared)
                names += (names.empty() ? "" : ", ") + s.name + " (" + std::to_string(s.words) + " words)";
            throw DiagnosticError(Diagnostic{m_cudaFile, 0, 0,
                                             "the kernel's __shared__ arrays need " +
                                                 std::to_string(m_out.sharedWords) + " words but a thread block has " +
                                                 std::to_string(m_spec.sharedWords) + ": " + names +
                                                 "; make them smaller"});
        }
        if (!m_module.globals.empty())
            throw DiagnosticError(Diagnostic{m_cudaFile, 0, 0,
                                             "__device__ variable '" + m_module.globals.front() +
                                                 "' is not supported: pass arrays as kernel parameters"});
    }

    // Pointer parameters come from the mangled signature (extern "C" kernels: every .u64 is a pointer).
    void describeParams(const std::vector<std::string>& names) {
        std::string demangled = llvm::demangle(m_fn.name);
        m_out.kernelName = demangled.substr(0, demangled.find('('));
        std::vector<std::string> types;
        size_t open = demangled.find('(');
        if (open != std::string::npos && demangled != m_fn.name) {
            std::string list = demangled.substr(open + 1, demangled.rfind(')') - open - 1);
            int depth = 0;
            std::string cur;
            for (char c : list) {
                if (c == '<' || c == '(') depth++;
                if (c == '>' || c == ')') depth--;
                if (c == ',' && depth == 0)
                    types.push_back(cur), cur.clear();
                else
                    cur += c;
            }
            if (!cur.empty()) types.push_back(cur);
        }
        for (size_t i = 0; i < m_fn.params.size(); ++i) {
            const ptx::Param& p = m_fn.params[i];
            bool pointer = i < types.size() ? types[i].find('*') != std::string::npos : p.type == "u64";
            std::string name = i < names.size() && !names[i].empty() ? names[i] : "arg" + std::to_string(i);
            if (!pointer && (p.type == "u64" || p.type == "s64" || p.type == "b64"))
                throw DiagnosticError(Diagnostic{m_cudaFile, 0, 0,
                                                 "parameter '" + name +
                                                     "' is 64 bits wide; the machine has 32-bit "
                                                     "integers only: use int or unsigned"});
            if (!pointer && p.type != "u32" && p.type != "s32" && p.type != "b32")
                throw DiagnosticError(Diagnostic{m_cudaFile, 0, 0,
                                                 "parameter '" + name + "' has PTX type ." + p.type +
                                                     "; kernels take int/unsigned scalars and int pointers only"});
            m_out.params.push_back({name, pointer});
            m_paramIndex[p.name] = int(i);
        }
    }

    // The 64-bit registers that addresses are computed in: the base of every memory access, and what adds,
    // moves and shifts into them. Only these can hold word addresses; any other 64-bit value is data.
    void findAddressRegisters() {
        for (const auto& in : m_fn.body) {
            const std::string& op = in.parts[0];
            if ((op == "ld" && !in.has("param")) || op == "st" || op == "atom" || op == "red")
                for (const auto& o : in.operands)
                    if (o.kind == Kind::Address && isWideReg(o.name)) m_addressRegs.insert(o.name);
        }
        for (bool changed = true; changed;) {
            changed = false;
            for (const auto& in : m_fn.body) {
                const std::string& op = in.parts[0];
                bool carries = op == "add" || op == "sub" || op == "selp" || op == "mov" || op == "cvta" ||
                               op == "shl" || op == "mul" || op == "cvt";
                bool compared = op == "setp" && in.operands.size() > 2 &&  // a pointer against an end pointer
                                (m_addressRegs.count(in.operands[1].name) || m_addressRegs.count(in.operands[2].name));
                if (!compared && (!carries || in.operands.empty() || !m_addressRegs.count(in.operands[0].name)))
                    continue;
                for (size_t i = 1; i < in.operands.size(); ++i)
                    if (in.operands[i].kind == Kind::Reg && isWideReg(in.operands[i].name))
                        changed |= m_addressRegs.insert(in.operands[i].name).second;
            }
        }
    }

    // Fixpoint over the function: which 64-bit registers hold word addresses, and into which memory.
    void inferWideRegisters() {
        findAddressRegisters();
        for (bool changed = true; changed;) {
            changed = false;
            for (const auto& in : m_fn.body) {
                if (in.operands.empty() || in.operands[0].kind != Kind::Reg || !isWideReg(in.operands[0].name))
                    continue;
                Wide w = wideDef(in);
                Wide& cur = m_wide[in.operands[0].name];
                Wide next{cur.rep == Rep::Word || w.rep == Rep::Word ? Rep::Word : Rep::Byte,
                          merge(cur.space, w.space)};
                if (next.rep != cur.rep || next.space != cur.space) cur = next, changed = true;
            }
        }
    }

    // 64-bit values (not addresses) whose high word may be more than the extension of the low one: the
    // products of mul.wide and what is computed from them, and left shifts by a register. The machine holds
    // their low words only, which is all a conversion back to 32 bits needs; a comparison would be wrong.
    // A product shifted right by 32 or more is its high word (mulHigh), a plain 32-bit value again.
    void findWideValues() {
        for (const auto& in : m_fn.body) {
            const auto& o = in.operands;
            if (o.empty() || o[0].kind != Kind::Reg || !isWideReg(o[0].name) || wideOf(o[0]).rep != Rep::Byte) continue;
            const std::string& op = in.parts[0];
            if (op == "mul" && in.has("wide")) m_products.insert(o[0].name), m_wideValues.insert(o[0].name);
            if (op == "shl" && o.size() > 2 && o[2].kind != Kind::Imm) m_wideValues.insert(o[0].name);
        }
        for (bool changed = true; changed;) {
            changed = false;
            for (const auto& in : m_fn.body) {
                const auto& o = in.operands;
                if (o.empty() || o[0].kind != Kind::Reg || !isWideReg(o[0].name) || m_wideValues.count(o[0].name))
                    continue;
                bool highWord = in.parts[0] == "shr" && m_products.count(o[1].name) && o[2].kind == Kind::Imm &&
                                o[2].value >= 32;
                for (size_t i = 1; i < o.size() && !highWord; ++i)
                    if (o[i].kind == Kind::Reg && m_wideValues.count(o[i].name)) {
                        m_wideValues.insert(o[0].name);
                        changed = true;
                        break;
                    }
            }
        }
    }
    void requireNarrow(const Operand& o) {
        if (o.kind == Kind::Reg && m_wideValues.count(o.name))
            fail("this needs all 64 bits of a product or a 64-bit shift, but the machine computes in 32 bits: "
                 "compare 32-bit values, or take the high word with __mulhi / __umulhi");
    }

    // 32-bit registers written once, by a mov of an immediate (prmt's selector arrives that way).
    void findConstants() {
        std::map<std::string, int> defs;
        for (const auto& in : m_fn.body)
            if (!in.operands.empty() && in.operands[0].kind == Kind::Reg) defs[in.operands[0].name]++;
        findCopiedWords(defs);
        for (const auto& in : m_fn.body)
            if (in.parts[0] == "mov" && in.guard.empty() && in.operands.size() == 2 &&
                in.operands[1].kind == Kind::Imm && !in.operands[1].isFloat && defs[in.operands[0].name] == 1)
                m_constants[in.operands[0].name] = in.operands[1].value;
    }
    // 64-bit registers that only carry memory to memory (a struct copy: ld.u64 then st.u64 of the same
    // register): each moves as two words.
    void findCopiedWords(std::map<std::string, int>& defs) {
        auto is64 = [](const ptx::Instruction& in) {
            std::string t = typeOf(in);
            return t == "u64" || t == "s64" || t == "b64";
        };
        for (const auto& in : m_fn.body)
            if (in.parts[0] == "ld" && !in.has("param") && is64(in) && !in.operands.empty() &&
                defs[in.operands[0].name] == 1)
                m_copiedWords.insert(in.operands[0].name);
        for (const auto& in : m_fn.body)
            for (size_t i = 0; i < in.operands.size(); ++i) {
                bool definition = i == 0 && in.parts[0] == "ld";
                bool storedValue = i == 1 && in.parts[0] == "st" && is64(in);
                if (!definition && !storedValue) m_copiedWords.erase(in.operands[i].name);
            }
    }
    std::vector<Operand> copiedWordHalves(const Operand& o) const {
        return {{Kind::Reg, o.name + ".lo", 0, false}, {Kind::Reg, o.name + ".hi", 0, false}};
    }

    std::optional<int64_t> constantOf(const Operand& o) const {
        if (o.kind == Kind::Imm) return o.value;
        auto it = m_constants.find(o.name);
        return it == m_constants.end() ? std::nullopt : std::optional<int64_t>(it->second);
    }

    Wide wideOf(const Operand& o) const {
        if (o.kind == Kind::Reg && isWideReg(o.name)) {
            auto it = m_wide.find(o.name);
            return it == m_wide.end() ? Wide{} : it->second;
        }
        return {};
    }

    Wide wideDef(const ptx::Instruction& in) const {
        const std::string& op = in.parts[0];
        auto src = [&](size_t i) { return i < in.operands.size() ? wideOf(in.operands[i]) : Wide{}; };
        auto immAt = [&](size_t i) -> std::optional<int64_t> {
            if (i < in.operands.size() && in.operands[i].kind == Kind::Imm) return in.operands[i].value;
            return std::nullopt;
        };
        if (op == "ld" && in.has("param")) {  // a pointer; a 32-bit scalar widened is a value
            std::string t = typeOf(in);
            return t.size() > 1 && t.substr(1) == "64" ? Wide{Rep::Word, Space::Global} : Wide{};
        }
        if (op == "mov" && in.operands.size() > 1 && in.operands[1].kind == Kind::Symbol)
            return {Rep::Word, Space::Shared};
        if (op == "mov") return src(1);
        if (op == "cvta")
            return {src(1).rep, in.has("shared") ? Space::Shared : in.has("global") ? Space::Global : src(1).space};
        bool address = m_addressRegs.count(in.operands[0].name) > 0;
        if (op == "mul" && in.has("wide"))
            return {address && immAt(2) && *immAt(2) % 4 == 0 ? Rep::Word : Rep::Byte, Space::Unknown};
        if (op == "shl") {
            Wide a = src(1);
            bool word = a.rep == Rep::Word || (address && immAt(2) && *immAt(2) >= 2);
            return {word ? Rep::Word : Rep::Byte, a.space};
        }
        if (op == "add" || op == "sub" || op == "selp") {
            Wide a = src(1), b = src(2);
            return {a.rep == Rep::Word || b.rep == Rep::Word ? Rep::Word : Rep::Byte, merge(a.space, b.space)};
        }
        return {};
    }

    // ---- blocks -------------------------------------------------------------------------------------
    VBlock& block() { return m_out.program.blocks[size_t(m_cur)]; }
    int newBlock() override {
        m_out.program.blocks.emplace_back();
        return int(m_out.program.blocks.size() - 1);
    }
    int labelBlock(const std::string& label) {
        auto it = m_labelBlocks.find(label);
        if (it != m_labelBlocks.end()) return it->second;
        if (!m_fn.labels.count(label)) fail("branch to unknown label " + label);
        return m_labelBlocks[label] = newBlock();
    }
    void enterLabel(const std::string& label) {
        int b = labelBlock(label);
        if (!block().terminated) terminate(Opcode::Jmp, b);
        m_cur = b;
    }
    void branch(int cond, int taken, int notTaken) override { terminate(Opcode::Br, taken, notTaken, cond); }
    void jump(int target) override { terminate(Opcode::Jmp, target); }
    void enter(int b) override { m_cur = b; }
    void terminate(Opcode op, int target = -1, int elseTarget = -1, int cond = kZeroReg) {
        VBlock& b = block();
        b.term = located(op);
        b.term.rc = cond;
        b.target = target;
        b.elseTarget = elseTarget;
        b.terminated = true;
    }

    // ---- registers ----------------------------------------------------------------------------------
    int vreg(const std::string& name) {
        if (name.rfind("%f", 0) == 0) fail("floating point is not supported: the machine has 32-bit integers only");
        auto it = m_vregs.find(name);
        if (it != m_vregs.end()) return it->second;
        return m_vregs[name] = m_nextVreg++;
    }
    int temp() override { return m_nextVreg++; }

    VInst located(Opcode op) const {
        VInst v;
        v.op = op;
        if (m_in) v.loc = m_in->cudaLoc, v.ptxLine = m_in->ptxLine;
        return v;
    }

    // The second source operand, evaluated (and any conversion emitted) before its instruction.
    B bOf(const Operand& o) {
        if (o.kind != Kind::Imm) return reg(reg32(o));
        if (o.isFloat) fail("floating point is not supported: the machine has 32-bit integers only");
        return imm(o.value);
    }

    // Operands must be evaluated before the call: evaluating them may emit conversions.
    void emit(Opcode op, int rd, int rs1, B b = {}, int rc = kZeroReg) override {
        VInst v = located(op);
        v.rd = rd, v.rs1 = rs1, v.rc = rc;
        v.useImm = b.isImm, v.imm = b.value, v.rs2 = b.reg;
        block().body.push_back(v);
    }
    void emitSymbol(int rd, const std::string& symbol) {
        VInst v = located(Opcode::Mov);
        v.rd = rd, v.useImm = true, v.immSymbol = symbol;
        block().body.push_back(v);
    }

    // A 32-bit value in a register (immediates get a mov).
    int reg32(const Operand& o) {
        if (o.kind == Kind::Reg) return isWideReg(o.name) ? asByte(o) : vreg(o.name);
        if (o.kind != Kind::Imm) fail("unexpected operand " + o.name);
        B b = bOf(o);
        int t = temp();
        emit(Opcode::Mov, t, kZeroReg, b);
        return t;
    }
    int asWord(const Operand& o) {
        if (o.kind == Kind::Reg && isWideReg(o.name) && wideOf(o).rep == Rep::Word) return vreg(o.name);
        int src = o.kind == Kind::Reg ? vreg(o.name) : reg32(o), t = temp();
        emit(Opcode::Sra, t, src, imm(2));
        return t;
    }
    int asByte(const Operand& o) {
        if (wideOf(o).rep == Rep::Byte) return vreg(o.name);
        int t = temp();
        emit(Opcode::Shl, t, vreg(o.name), imm(2));
        return t;
    }

    // ---- instructions -------------------------------------------------------------------------------
    void statement(const ptx::Instruction& in) {
        const std::string& op = in.parts[0];
        if (mentionsFloat(in)) fail("floating point is not supported: the machine has 32-bit integers only");
        for (const auto& o : in.operands)
            for (const auto& local : m_module.locals)
                if (o.name == local)
                    fail("local arrays are not supported: use registers, or __shared__ memory indexed by thread");
        if (op == "bra") return branch(in);
        if (!in.guard.empty()) return guarded(in);
        if (op == "ret" || op == "exit") {
            terminate(Opcode::Exit);
            m_cur = newBlock();
            return;
        }
        if ((op == "bar" || op == "barrier") && !in.has("warp")) {
            int next = newBlock();
            terminate(Opcode::Bar, next);
            m_cur = next;
            return;
        }
        select(in);
    }

    void branch(const ptx::Instruction& in) {
        if (in.operands.empty() || in.operands[0].kind != Kind::Label) fail("indirect branches are not supported");
        int target = labelBlock(in.operands[0].name);
        int next = newBlock();
        if (in.guard.empty())
            terminate(Opcode::Jmp, target);
        else if (in.guardNegated)
            terminate(Opcode::Br, next, target, vreg(in.guard));
        else
            terminate(Opcode::Br, target, next, vreg(in.guard));
        m_cur = next;
    }

    // `@%p instr`: the instruction gets a block of its own that only the lanes with the predicate enter.
    void guarded(const ptx::Instruction& in) {
        int body = newBlock(), cont = newBlock();
        int p = vreg(in.guard);
        if (in.guardNegated)
            terminate(Opcode::Br, cont, body, p);
        else
            terminate(Opcode::Br, body, cont, p);
        m_cur = body;
        ptx::Instruction plain = in;
        plain.guard.clear();
        statement(plain);
        if (!block().terminated) terminate(Opcode::Jmp, cont);
        m_cur = cont;
    }

    void requireInt32(const ptx::Instruction& in) {
        std::string t = typeOf(in);
        if (t.size() > 1 && t[0] == 'f') fail("floating point is not supported: the machine has 32-bit integers only");
        if (t == "s64" || t == "u64" || t == "b64") fail("64-bit integer arithmetic is not supported: use int");
    }

    void select(const ptx::Instruction& in) {
        const std::string& op = in.parts[0];
        const auto& o = in.operands;
        if (op == "ld" && in.has("param")) return loadParam(in);
        if (op == "ld" || op == "st" || op == "atom" || op == "red") return memory(in);
        if (op == "shfl") return shuffle(in);
        if (op == "membar" || op == "fence" || (op == "bar" && in.has("warp"))) return;  // lanes run in lockstep
        if (op == "cvt" && in.parts.size() > 2 && (bitsOf(in.parts[1]) < 32 || bitsOf(in.parts[2]) < 32))
            return narrowConvert(in);
        if (bitsOf(typeOf(in)) < 32) return narrowOperation(in);
        bool wideDest = !o.empty() && o[0].kind == Kind::Reg && isWideReg(o[0].name);
        if (wideDest || (op == "cvt" && in.parts.size() > 2) || op == "cvta") return wide(in);
        if (op == "mov") return move(in);
        if (op == "setp") return compare(in);
        if (op == "call")
            fail("function calls are not supported: make device functions inline (static __device__ __forceinline__)");
        requireInt32(in);
        if (expandSequence(in)) return;
        if (op == "selp") {
            int a = reg32(o[1]), c = reg32(o[3]);
            B b = bOf(o[2]);
            return emit(Opcode::Sel, vreg(o[0].name), a, b, c);
        }
        if (op == "mad" && in.has("lo")) {
            int a = reg32(o[1]), t = temp();
            B b = bOf(o[2]), c = bOf(o[3]);
            emit(Opcode::Mul, t, a, b);
            return emit(Opcode::Add, vreg(o[0].name), t, c);
        }
        if (op == "neg") {
            int a = reg32(o[1]);
            return emit(Opcode::Sub, vreg(o[0].name), kZeroReg, reg(a));
        }
        if (op == "not") {
            int a = reg32(o[1]);
            if (typeOf(in) == "pred") return emit(Opcode::Xor, vreg(o[0].name), a, imm(1));
            return emit(Opcode::Not, vreg(o[0].name), a);
        }
        if (op == "abs") {
            int x = reg32(o[1]), sign = temp(), flipped = temp();
            emit(Opcode::Sra, sign, x, imm(31));
            emit(Opcode::Xor, flipped, x, reg(sign));
            return emit(Opcode::Sub, vreg(o[0].name), flipped, reg(sign));
        }
        std::optional<Opcode> alu = aluOpcode(in);
        if (!alu) fail("unsupported PTX instruction '" + in.opcode + "'");
        if (o.size() != 3) fail("expected 3 operands");
        int a = reg32(o[1]);
        B b = bOf(o[2]);
        emit(*alu, vreg(o[0].name), a, b);
    }

    // ---- 8- and 16-bit values ------------------------------------------------------------------------
    // Clang narrows arithmetic it can prove small (threadIdx.x / 3 becomes 16-bit). Such a value lives in
    // a 32-bit register whose bits above its width are undefined: operations whose low bits depend only
    // on the operands' low bits run as they are; the others (right shifts, division, compares, min/max,
    // high products) see the operands zero- or sign-extended first.
    static int bitsOf(const std::string& type) {
        if (type.size() < 2 || (type[0] != 's' && type[0] != 'u' && type[0] != 'b')) return 32;
        int bits = std::atoi(type.c_str() + 1);
        return bits > 0 ? bits : 32;
    }
    int extend(int r, int bits, bool isSigned) {
        int t = temp();
        if (isSigned) {
            int up = temp();
            emit(Opcode::Shl, up, r, imm(32 - bits));
            emit(Opcode::Sra, t, up, imm(32 - bits));
        } else {
            emit(Opcode::And, t, r, imm((int64_t(1) << bits) - 1));
        }
        return t;
    }
    // A name for a 32-bit register the rewritten instruction reads.
    Operand extended(const Operand& o, int bits, bool isSigned) {
        if (o.kind != Kind::Reg) return o;
        std::string name = "%ext" + std::to_string(m_nextVreg);
        m_vregs[name] = extend(reg32(o), bits, isSigned);
        return {Kind::Reg, name, 0, false};
    }

    void narrowConvert(const ptx::Instruction& in) {
        const auto& o = in.operands;
        int to = bitsOf(in.parts[1]), from = bitsOf(in.parts[2]);
        int src = isWideReg(o[1].name) ? asByte(o[1]) : reg32(o[1]);
        if (to <= from || from >= 32) return emit(Opcode::Mov, vreg(o[0].name), kZeroReg, reg(src));  // truncating
        int value = extend(src, from, in.parts[2][0] == 's');
        if (to == 64 && wideOf(o[0]).rep == Rep::Word) return emit(Opcode::Sra, vreg(o[0].name), value, imm(2));
        emit(Opcode::Mov, vreg(o[0].name), kZeroReg, reg(value));
    }

    void narrowOperation(const ptx::Instruction& in) {
        const std::string& op = in.parts[0];
        std::string type = typeOf(in);
        int bits = bitsOf(type);
        bool isSigned = type[0] == 's';
        ptx::Instruction w = in;
        w.parts.back() = std::string(1, type[0]) + "32";
        w.opcode = in.opcode.substr(0, in.opcode.rfind('.')) + "." + w.parts.back();
        bool needsHighBits = op == "shr" || op == "div" || op == "rem" || op == "setp" || op == "min" ||
                             op == "max" || (op == "mul" && !in.has("lo")) || op == "bfe";
        if (needsHighBits)
            for (size_t i = 1; i < w.operands.size(); ++i)
                if (op != "shr" || i == 1) w.operands[i] = extended(w.operands[i], bits, isSigned);
        if (op == "mul" && (in.has("wide") || in.has("hi"))) {  // exact in 32 bits from extended operands
            bool hi = in.has("hi");
            w.parts = {"mul", "lo", w.parts.back()};
            if (!hi) return statement(w);
            std::string full = "%ext" + std::to_string(m_nextVreg);
            Operand dest = w.operands[0];
            w.operands[0] = {Kind::Reg, full, 0, false};
            statement(w);
            return emit(isSigned ? Opcode::Sra : Opcode::Shr, vreg(dest.name), vreg(full), imm(bits));
        }
        statement(w);
    }

    // Operations the machine has no opcode for, as instruction sequences (Sequences.h).
    bool expandSequence(const ptx::Instruction& in) {
        const std::string& op = in.parts[0];
        const auto& o = in.operands;
        bool isSigned = typeOf(in)[0] == 's';
        auto operands = [&](size_t n) {
            if (o.size() != n) fail("expected " + std::to_string(n) + " operands");
        };
        if (op == "mul" && in.has("hi")) {
            operands(3);
            int a = reg32(o[1]);
            B b = bOf(o[2]);
            mulHigh(*this, vreg(o[0].name), a, b, isSigned);
        } else if (op == "div" || op == "rem") {
            operands(3);
            int a = reg32(o[1]);
            B b = bOf(o[2]);
            divide(*this, vreg(o[0].name), a, b, isSigned, op == "rem");
        } else if (op == "popc" || op == "clz" || op == "brev") {
            operands(2);
            int a = reg32(o[1]), rd = vreg(o[0].name);
            if (op == "popc") populationCount(*this, rd, a);
            if (op == "clz") leadingZeros(*this, rd, a);
            if (op == "brev") bitReverse(*this, rd, a);
        } else if (op == "bfe") {
            operands(4);
            int a = reg32(o[1]);
            B pos = bOf(o[2]), len = bOf(o[3]);
            bitFieldExtract(*this, vreg(o[0].name), a, pos, len, isSigned);
        } else if (op == "bfi") {
            operands(5);
            int a = reg32(o[1]), base = reg32(o[2]);
            B pos = bOf(o[3]), len = bOf(o[4]);
            bitFieldInsert(*this, vreg(o[0].name), a, base, pos, len);
        } else if (op == "shf") {
            operands(4);
            int a = reg32(o[1]), b = reg32(o[2]);
            B amount = bOf(o[3]);
            funnelShift(*this, vreg(o[0].name), a, b, amount, in.has("l"), in.has("clamp"));
        } else if (op == "prmt") {
            operands(4);
            if (in.parts.size() != 2) fail("prmt with a mode (." + in.parts[1] + ") is not supported");
            std::optional<int64_t> selector = constantOf(o[3]);
            if (!selector)
                fail("__byte_perm with a selector computed at run time is not supported: use a constant selector");
            int a = reg32(o[1]), b = reg32(o[2]);
            bytePermute(*this, vreg(o[0].name), a, b, uint32_t(*selector));
        } else {
            return false;
        }
        return true;
    }

    std::optional<Opcode> aluOpcode(const ptx::Instruction& in) const {
        const std::string& op = in.parts[0];
        bool isSigned = typeOf(in)[0] == 's';
        if (op == "add") return Opcode::Add;
        if (op == "sub") return Opcode::Sub;
        if (op == "mul" && in.has("lo")) return Opcode::Mul;
        if (op == "and") return Opcode::And;
        if (op == "or") return Opcode::Or;
        if (op == "xor") return Opcode::Xor;
        if (op == "shl") return Opcode::Shl;
        if (op == "shr") return isSigned ? Opcode::Sra : Opcode::Shr;
        if (op == "min") return isSigned ? Opcode::Min : Opcode::MinU;
        if (op == "max") return isSigned ? Opcode::Max : Opcode::MaxU;
        return std::nullopt;
    }

    void loadParam(const ptx::Instruction& in) {
        const Operand& addr = in.operands.at(1);
        auto it = m_paramIndex.find(addr.name);
        if (it == m_paramIndex.end() || addr.value != 0) fail("unexpected parameter access " + addr.name);
        emitSymbol(vreg(in.operands[0].name), "#" + std::to_string(it->second));
    }

    void move(const ptx::Instruction& in) {
        const Operand& src = in.operands.at(1);
        int rd = vreg(in.operands[0].name);
        if (src.kind == Kind::Special) {
            static const std::map<std::string, SpecialReg> specials = {
                {"%tid.x", SpecialReg::TidX},       {"%tid.y", SpecialReg::TidY},
                {"%tid.z", SpecialReg::TidZ},       {"%ntid.x", SpecialReg::NtidX},
                {"%ntid.y", SpecialReg::NtidY},     {"%ntid.z", SpecialReg::NtidZ},
                {"%ctaid.x", SpecialReg::CtaidX},   {"%ctaid.y", SpecialReg::CtaidY},
                {"%ctaid.z", SpecialReg::CtaidZ},   {"%nctaid.x", SpecialReg::NctaidX},
                {"%nctaid.y", SpecialReg::NctaidY}, {"%nctaid.z", SpecialReg::NctaidZ},
                {"%laneid", SpecialReg::LaneId},    {"%warpid", SpecialReg::WarpId}};
            auto it = specials.find(src.name);
            if (it == specials.end()) fail("special register " + src.name + " is not available on this machine");
            return emit(Opcode::Sreg, rd, kZeroReg, imm(int64_t(it->second)));
        }
        requireInt32(in);
        B b = bOf(src);
        emit(Opcode::Mov, rd, kZeroReg, b);
    }

    void compare(const ptx::Instruction& in) {
        if (in.parts.size() != 3) fail("compound predicate compares are not supported");
        static const std::map<std::string, Opcode> sgn = {{"eq", Opcode::SetEq}, {"ne", Opcode::SetNe},
                                                          {"lt", Opcode::SetLt}, {"le", Opcode::SetLe},
                                                          {"gt", Opcode::SetGt}, {"ge", Opcode::SetGe}};
        static const std::map<std::string, Opcode> uns = {
            {"eq", Opcode::SetEq},  {"ne", Opcode::SetNe},  {"lt", Opcode::SetLtU}, {"le", Opcode::SetLeU},
            {"gt", Opcode::SetGtU}, {"ge", Opcode::SetGeU}, {"lo", Opcode::SetLtU}, {"ls", Opcode::SetLeU},
            {"hi", Opcode::SetGtU}, {"hs", Opcode::SetGeU}};
        std::string type = typeOf(in);
        if (type[0] == 'f') fail("floating point is not supported: the machine has 32-bit integers only");
        const auto& table = type[0] == 's' ? sgn : uns;
        auto it = table.find(in.parts[1]);
        if (it == table.end()) fail("unsupported comparison ." + in.parts[1]);
        const auto& o = in.operands;
        requireNarrow(o[1]);
        requireNarrow(o[2]);
        bool words = type.size() > 1 && type.substr(1) == "64" &&
                     (wideOf(o[1]).rep == Rep::Word || wideOf(o[2]).rep == Rep::Word);
        int a = words ? asWord(o[1]) : reg32(o[1]);
        if (words && o[2].kind == Kind::Imm && o[2].value % 4)
            fail("a pointer compared with a byte address that is not a whole word");
        B b = !words ? bOf(o[2]) : o[2].kind == Kind::Reg ? reg(asWord(o[2])) : imm(o[2].value / 4);
        emit(it->second, vreg(o[0].name), a, b);
    }

    // Address arithmetic on 64-bit registers, in words or bytes (see Rep).
    void wide(const ptx::Instruction& in) {
        const std::string& op = in.parts[0];
        const auto& o = in.operands;
        if (op == "cvt" && !isWideReg(o[0].name)) {  // back to a 32-bit value
            std::string from = in.parts.size() > 2 ? in.parts[2] : "";
            if (from.size() > 1 && from.substr(1) == "64")
                return emit(Opcode::Mov, vreg(o[0].name), kZeroReg, reg(asByte(o[1])));
            if (from == "u32" || from == "s32" || from == "b32")
                return emit(Opcode::Mov, vreg(o[0].name), kZeroReg, reg(reg32(o[1])));
            fail("conversion " + in.opcode + " is not supported: use int");
        }
        int rd = vreg(o[0].name);
        Rep dst = wideOf(o[0]).rep;
        auto operand = [&](const Operand& x) -> B {
            if (x.kind == Kind::Imm) {
                if (dst == Rep::Word && x.value % 4)
                    fail("a byte offset that is not a whole word: the machine addresses 32-bit words");
                return imm(dst == Rep::Word ? x.value / 4 : x.value);
            }
            return reg(dst == Rep::Word ? asWord(x) : reg32(x));
        };
        if (op == "cvt") {  // a byte value; a register that also holds word addresses needs words
            int v = reg32(o[1]);
            return emit(dst == Rep::Word ? Opcode::Sra : Opcode::Mov, rd, dst == Rep::Word ? v : kZeroReg,
                        dst == Rep::Word ? imm(2) : reg(v));
        }
        if (op == "cvta" || (op == "mov" && o[1].kind != Kind::Symbol))
            return emit(Opcode::Mov, rd, kZeroReg, operand(o[1]));
        if (op == "mov") return emit(Opcode::Mov, rd, kZeroReg, imm(sharedBase(o[1].name)));
        if (op == "mul" && in.has("wide")) {
            int a = reg32(o[1]);
            if (m_products.count(o[0].name)) {  // the low word, and the high one for a shift right
                B b = bOf(o[2]);
                emit(Opcode::Mul, rd, a, b);
                return mulHigh(*this, vreg(o[0].name + ".hi"), a, b, in.has("s32"));
            }
            if (o[2].kind == Kind::Imm && (dst == Rep::Byte || o[2].value % 4 == 0))
                return emit(Opcode::Mul, rd, a, imm(dst == Rep::Word ? o[2].value / 4 : o[2].value));
            emit(Opcode::Mul, rd, a, bOf(o[2]));
            if (dst == Rep::Word) emit(Opcode::Sra, rd, rd, imm(2));
            return;
        }
        if (op == "shl" && o[2].kind == Kind::Imm) {
            bool fromBytes = wideOf(o[1]).rep == Rep::Byte;
            int64_t k = fromBytes && dst == Rep::Word ? o[2].value - 2 : o[2].value;
            if (k < 0) fail("an address that is not a whole number of 32-bit words: the machine addresses words");
            return emit(Opcode::Shl, rd, vreg(o[1].name), imm(k));
        }
        if (op == "shr" && o[2].kind == Kind::Imm && wideOf(o[1]).rep == Rep::Word && o[2].value >= 2)
            return emit(in.has("s64") ? Opcode::Sra : Opcode::Shr, rd, vreg(o[1].name), imm(o[2].value - 2));
        Opcode right = in.has("s64") ? Opcode::Sra : Opcode::Shr;
        if (op == "shr" && o[2].kind == Kind::Imm && m_products.count(o[1].name))
            return shiftProduct(rd, vreg(o[1].name), vreg(o[1].name + ".hi"), int(o[2].value & 63), right);
        if (op == "shr" && o[2].kind == Kind::Imm && dst == Rep::Byte && wideOf(o[1]).rep == Rep::Byte &&
            o[2].value < 32) {
            requireNarrow(o[1]);
            return emit(right, rd, reg32(o[1]), imm(o[2].value));
        }
        static const std::map<std::string, Opcode> bitwise = {
            {"and", Opcode::And}, {"or", Opcode::Or}, {"xor", Opcode::Xor}, {"mul", Opcode::Mul}, {"shl", Opcode::Shl}};
        auto bit = bitwise.find(op);
        if (bit != bitwise.end() && dst == Rep::Byte && (op != "mul" || in.has("lo")) &&
            wideOf(o[1]).rep == Rep::Byte) {  // the low word of a value
            int a = reg32(o[1]);
            return emit(bit->second, rd, a, bOf(o[2]));
        }
        if (op == "not" && dst == Rep::Byte) return emit(Opcode::Not, rd, reg32(o[1]));
        if ((op == "add" || op == "sub") && in.parts.size() == 2) {
            int a = dst == Rep::Word ? asWord(o[1]) : reg32(o[1]);
            B b = operand(o[2]);
            return emit(op == "add" ? Opcode::Add : Opcode::Sub, rd, a, b);
        }
        if (op == "selp") {
            int a = dst == Rep::Word ? asWord(o[1]) : reg32(o[1]), c = reg32(o[3]);
            B b = operand(o[2]);
            return emit(Opcode::Sel, rd, a, b, c);
        }
        fail("64-bit arithmetic '" + in.opcode + "' is not supported: the machine computes in 32 bits (use int)");
    }

    // rd = the low word of the 64-bit (hi:lo) shifted right by k.
    void shiftProduct(int rd, int lo, int hi, int k, Opcode right) {
        if (k >= 32) return emit(right, rd, hi, imm(k - 32));
        if (k == 0) return emit(Opcode::Mov, rd, kZeroReg, reg(lo));
        int low = temp(), high = temp();
        emit(Opcode::Shr, low, lo, imm(k));
        emit(Opcode::Shl, high, hi, imm(32 - k));
        emit(Opcode::Or, rd, low, reg(high));
    }

    int sharedBase(const std::string& symbol) {
        for (const auto& s : m_out.shared)
            if (s.name == symbol) return s.base;
        fail("unknown memory symbol " + symbol + " (only __shared__ arrays and kernel parameters are supported)");
    }

    // [reg + offset] or [symbol + offset] -> (rs1, imm in words), and which memory it is in.
    std::pair<int, uint32_t> address(const Operand& a, Space& space) {
        if (a.kind != Kind::Address) fail("expected a memory operand");
        if (a.value % 4) fail("an access that is not at a whole 32-bit word: the machine addresses words");
        if (a.name.empty()) fail("absolute addresses are not supported");
        if (a.name[0] != '%') {
            space = Space::Shared;
            return {kZeroReg, uint32_t(sharedBase(a.name) + a.value / 4)};
        }
        Operand base{Kind::Reg, a.name, 0, false};
        if (space == Space::Unknown) space = wideOf(base).space;
        return {asWord(base), uint32_t(a.value / 4)};
    }

    void memory(const ptx::Instruction& in) {
        const std::string& op = in.parts[0];
        const auto& o = in.operands;
        if (in.has("local")) fail("local arrays are not supported: use registers or __shared__ memory");
        if (in.has("const")) fail("__constant__ memory is not supported: pass arrays as kernel parameters");
        std::string t = typeOf(in);
        const Operand* data = op == "ld" ? &o.at(0) : op == "st" ? &o.at(1) : nullptr;
        bool copied = data && m_copiedWords.count(data->name);
        if ((op == "ld" || op == "st") && bitsOf(t) < 32) return narrowMemory(in);
        if (t != "u32" && t != "s32" && t != "b32" && !copied) {
            if (t.size() > 1 && t[0] == 'f')
                fail("floating point is not supported: the machine has 32-bit integers only");
            fail("only 32-bit memory accesses are supported (found ." + t + "): use int arrays");
        }
        Space space = in.has("shared") ? Space::Shared : in.has("global") ? Space::Global : Space::Unknown;
        bool store = op == "st" || op == "red";
        auto [base, offset] = address(store ? o.at(0) : o.at(1), space);
        if (space == Space::Unknown || space == Space::Mixed)
            fail("cannot tell whether this pointer is global or shared memory; index arrays directly");
        bool shared = space == Space::Shared;
        if (op == "ld" || op == "st") {  // .v2 and .v4: one word per element, at consecutive addresses
            std::vector<Operand> elements = copied ? copiedWordHalves(*data) : vectorElements(*data);
            for (size_t i = 0; i < elements.size(); ++i) {
                const Operand& e = elements[i];
                uint32_t at = offset + uint32_t(i);
                if (op == "ld") {
                    if (e.kind == Kind::Reg) emit(shared ? Opcode::LdShared : Opcode::LdGlobal, vreg(e.name), base, imm(at));
                    continue;
                }
                int value = reg32(e);
                VInst v = located(shared ? Opcode::StShared : Opcode::StGlobal);
                v.rs1 = base, v.imm = at, v.rs2 = value;
                block().body.push_back(v);
            }
            return;
        }
        if (in.has("v2") || in.has("v4")) fail("vector atomics are not supported");
        if (!in.has("add")) fail("only atomicAdd and atomicSub are supported");
        int value = reg32(op == "red" ? o[1] : o[2]);
        VInst v = located(shared ? Opcode::AtomShared : Opcode::AtomGlobal);
        v.rd = op == "red" ? kZeroReg : vreg(o[0].name), v.rs1 = base, v.imm = offset, v.rs2 = value;
        block().body.push_back(v);
    }

    // A byte or halfword of a word: Clang narrows `x >> 24` or `x & 0xFFFF` of an int to such a load, and a
    // read-modify-write of part of an int to such a store. The word is read (and written back) whole; the
    // byte's place comes from the address offset (the base is a word address).
    void narrowMemory(const ptx::Instruction& in) {
        const auto& o = in.operands;
        bool load = in.parts[0] == "ld";
        std::string t = typeOf(in);
        int bits = bitsOf(t);
        if (in.has("v2") || in.has("v4")) fail("vector accesses of bytes or halfwords are not supported: use int");
        Operand at = load ? o.at(1) : o.at(0);
        if (at.kind != Kind::Address || at.name.empty() || (at.name[0] == '%' && wideOf({Kind::Reg, at.name, 0, false}).rep != Rep::Word))
            fail("a byte or halfword access through a computed byte address: index int arrays instead");
        int64_t byte = ((at.value % 4) + 4) % 4;
        if (byte * 8 + bits > 32) fail("a halfword access that crosses a word: index int arrays instead");
        at.value -= byte;
        Space space = in.has("shared") ? Space::Shared : in.has("global") ? Space::Global : Space::Unknown;
        auto [base, offset] = address(at, space);
        if (space == Space::Unknown || space == Space::Mixed)
            fail("cannot tell whether this pointer is global or shared memory; index arrays directly");
        bool shared = space == Space::Shared;
        int word = temp();
        emit(shared ? Opcode::LdShared : Opcode::LdGlobal, word, base, imm(offset));
        int shift = int(byte * 8);
        if (load) {
            int up = temp();
            emit(Opcode::Shl, up, word, imm(32 - bits - shift));
            return emit(t[0] == 's' ? Opcode::Sra : Opcode::Shr, vreg(o[0].name), up, imm(32 - bits));
        }
        uint32_t field = uint32_t(((uint64_t(1) << bits) - 1) << shift);
        int kept = temp(), part = temp(), placed = temp(), merged = temp();
        emit(Opcode::And, kept, word, imm(~field));
        emit(Opcode::Shl, part, reg32(o[1]), imm(shift));
        emit(Opcode::And, placed, part, imm(field));
        emit(Opcode::Or, merged, kept, reg(placed));
        VInst v = located(shared ? Opcode::StShared : Opcode::StGlobal);
        v.rs1 = base, v.imm = offset, v.rs2 = merged;
        block().body.push_back(v);
    }

    // The elements of a `{%r1, %r2}` operand (`_` is an element a load discards), or the operand itself.
    std::vector<Operand> vectorElements(const Operand& v) {
        if (v.kind != Kind::Vector) return {v};
        std::vector<Operand> out;
        std::string inner = v.name.substr(1, v.name.size() - 2), cur;
        for (char c : inner + ",") {
            if (c != ',') {
                if (!std::isspace(static_cast<unsigned char>(c))) cur += c;
                continue;
            }
            if (cur == "_")
                out.push_back({Kind::Symbol, cur, 0, false});
            else if (!cur.empty() && cur[0] == '%')
                out.push_back({Kind::Reg, cur, 0, false});
            else if (!cur.empty() && (std::isdigit(static_cast<unsigned char>(cur[0])) || cur[0] == '-'))
                out.push_back({Kind::Imm, "", std::strtoll(cur.c_str(), nullptr, 0), false});
            else
                fail("unexpected vector element '" + cur + "'");
            cur.clear();
        }
        return out;
    }

    void shuffle(const ptx::Instruction& in) {
        const auto& o = in.operands;
        if (o.size() < 4 || o[3].kind != Kind::Imm) fail("shuffles need a constant width");
        static const std::map<std::string, Opcode> modes = {
            {"idx", Opcode::ShflIdx}, {"up", Opcode::ShflUp}, {"down", Opcode::ShflDown}, {"bfly", Opcode::ShflBfly}};
        auto mode = modes.find(in.parts.size() > 2 ? in.parts[2] : "");
        if (mode == modes.end()) fail("unsupported shuffle mode");
        // c = segment mask << 8 | clamp; the width is the number of lanes the segment mask leaves free.
        int segmask = int((o[3].value >> 8) & 31), width = std::min(((~segmask) & 31) + 1, m_spec.lanesPerWarp);
        uint8_t log2 = 0;
        while ((2 << log2) <= width) ++log2;
        int a = reg32(o[1]);
        B b = bOf(o[2]);
        emit(mode->second, vreg(o[0].name), a, b);
        block().body.back().aux = log2;
    }

    const ptx::Module& m_module;
    const ptx::Function& m_fn;
    std::string m_cudaFile;
    MachineSpec m_spec;
    Selection m_out;
    std::map<std::string, int> m_paramIndex, m_vregs, m_labelBlocks;
    std::map<std::string, Wide> m_wide;
    std::map<std::string, int64_t> m_constants;
    std::set<std::string> m_copiedWords, m_products, m_wideValues, m_addressRegs;
    int m_nextVreg = 0, m_cur = 0;
    const ptx::Instruction* m_in = nullptr;
};

}  // namespace

Selection selectInstructions(const ptx::Module& module, const std::vector<std::string>& paramNames,
                             const std::string& cudaFile, const MachineSpec& spec) {
    const ptx::Function* kernel = nullptr;
    for (const auto& f : module.functions) {
        if (!f.isEntry) continue;
        if (kernel)
            throw DiagnosticError(
                Diagnostic{cudaFile, 0, 0, "the file defines more than one __global__ kernel; keep one per file"});
        kernel = &f;
    }
    if (!kernel) throw DiagnosticError(Diagnostic{cudaFile, 0, 0, "the file defines no __global__ kernel"});
    for (const auto& f : module.functions)
        if (!f.isEntry)
            throw DiagnosticError(
                Diagnostic{cudaFile, 0, 0,
                           "device function '" + llvm::demangle(f.name) +
                               "' was not inlined; calls are not supported: mark it __forceinline__"});
    return Selector(module, *kernel, paramNames, cudaFile, spec).run();
}

}  // namespace qgpu::lowering
