// PTX statements -> machine instructions: control flow, ALU operations, moves, compares (Selector.h).
#include <llvm/Demangle/Demangle.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <functional>
#include <set>

#include "OperandForms.h"
#include "Passes.h"
#include "SequenceHelpers.h"
#include "CallStack.h"
#include "Inlining.h"
#include "StructParams.h"
#include "Selector.h"
#include "qgpu/core/Launch.h"

namespace qgpu::lowering {

namespace {

// An operand as PTX writes it: "%r1", "7", "[%rd1+8]".
std::string operandText(const Operand& o) {
    if (o.kind == Kind::Imm) return o.isFloat ? o.name : std::to_string(o.value);
    if (o.kind != Kind::Address) return o.name;
    if (o.name.empty()) return "[" + std::to_string(o.value) + "]";
    return "[" + o.name + (o.value ? "+" + std::to_string(o.value) : "") + "]";
}

const char* kindOf(const Operand& o) {
    switch (o.kind) {
        case Kind::Reg: return "a register";
        case Kind::Imm: return "an immediate";
        case Kind::Address: return "an address";
        case Kind::Symbol: return "a name no .reg declares";
        case Kind::Special: return "a special register";
        case Kind::Label: return "a label";
        case Kind::Vector: return "a vector";
    }
    return "an operand";
}

// The kinds of OperandForms.h an operand may stand for (the parser cannot tell a predicate register).
unsigned kindsOf(const Operand& o) {
    switch (o.kind) {
        case Kind::Reg: return kReg | kPred;
        case Kind::Imm: return kImm;
        case Kind::Address: return kAddress;
        case Kind::Symbol: return kSymbol;
        case Kind::Special: return kSpecial;
        case Kind::Label: return kLabel;
        case Kind::Vector: return kVector;
    }
    return 0;
}

// "4 operands (a register, a register or an immediate, ...)"
std::string describeForm(const OperandForm& f) {
    if (f.max == 0) return "no operands";
    std::string out = std::to_string(f.min) + (f.min == f.max ? "" : " or " + std::to_string(f.max)) +
                      (f.max == 1 ? " operand (" : " operands (");
    for (int i = 0; i < f.max; ++i) out += (i ? ", " : "") + describeKinds(f.kinds[i]);
    return out + ")";
}

bool hasType(const ptx::Instruction& in) {
    static const std::set<std::string> types = {"s8",    "s16",  "s32",    "s64",  "u8",  "u16",  "u32",
                                                "u64",   "b8",   "b16",    "b32",  "b64", "b128", "f16",
                                                "f16x2", "bf16", "bf16x2", "tf32", "f32", "f64",  "pred"};
    for (size_t i = 1; i < in.parts.size(); ++i)
        if (types.count(in.parts[i])) return true;
    return false;
}

// The elements of a `{%r1, %r2}` operand as written.
std::vector<std::string> elementsOf(const Operand& v) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : v.name.substr(1, v.name.size() - 2) + ",") {
        if (c != ',') {
            if (c != ' ' && c != '\t') cur += c;
            continue;
        }
        out.push_back(cur);
        cur.clear();
    }
    return out;
}

// A load or store moves a vector of registers exactly when it is .v2 or .v4, one per element.
void checkVectorData(const ptx::Instruction& in, const std::function<void(const std::string&)>& fail) {
    bool load = in.parts[0] == "ld";
    size_t at = load ? 0 : 1, lanes = in.has("v4") ? 4 : in.has("v2") ? 2 : 1;
    const Operand& data = in.operands[at];
    std::string which = "operand " + std::to_string(at + 1) + " ('" + operandText(data) + "')";
    if (data.kind != Kind::Vector) {
        if (lanes > 1)
            fail(in.opcode + " moves " + std::to_string(lanes) + " values: " + which + " must be a vector of " +
                 std::to_string(lanes) + " registers, such as {%r1, %r2}");
        return;
    }
    std::vector<std::string> elements = elementsOf(data);
    if (lanes == 1 || elements.size() != lanes)
        fail(in.opcode + " moves " + std::to_string(lanes) + (lanes == 1 ? " value" : " values") + ", but " + which +
             " has " + std::to_string(elements.size()) + (elements.size() == 1 ? " element" : " elements") +
             (lanes == 1 ? " (.v2 and .v4 move vectors)" : ""));
    for (const std::string& e : elements) {
        bool ok = !e.empty() &&
                  (e[0] == '%' || (load ? e == "_" : std::isdigit(static_cast<unsigned char>(e[0])) || e[0] == '-'));
        if (!ok)
            fail(which + " holds '" + e + "': a load's vector holds registers or _, a store's registers or immediates");
    }
}

// Every instruction of the kernel against the forms the selector takes (OperandForms.h), before any is
// selected: the operand count, each operand's kind, branch targets and the elements of vectors.
void checkOperandForms(const ptx::Function& fn, const std::string& cudaFile) {
    for (const ptx::Instruction& in : fn.body) {
        std::function<void(const std::string&)> fail = [&](const std::string& msg) {
            throw DiagnosticError(
                Diagnostic{cudaFile, in.cudaLoc.line, in.cudaLoc.column,
                           msg + " (PTX line " + std::to_string(in.ptxLine) + ": " + in.opcode + ")"});
        };
        const OperandForm* form = operandForm(in.parts);
        if (!form) continue;  // select() refuses it by name before reading an operand
        if (form->typed && !hasType(in)) fail(in.opcode + " names no type (such as .s32 or .f32)");
        std::string takes = in.opcode + " takes " + describeForm(*form);
        const auto& o = in.operands;
        if (int(o.size()) < form->min || int(o.size()) > form->max) {
            std::string given;
            for (const Operand& x : o) given += (given.empty() ? ": " : ", ") + operandText(x);
            fail(takes + ", but was given " + (o.empty() ? "none" : std::to_string(o.size()) + given));
        }
        for (size_t i = 0; i < o.size(); ++i) {
            if (!(form->kinds[i] & kindsOf(o[i])))
                fail(takes + ", but operand " + std::to_string(i + 1) + " is '" + operandText(o[i]) + "', " +
                     kindOf(o[i]));
            if (o[i].kind == Kind::Label && !fn.labels.count(o[i].name))
                fail("the label '" + o[i].name + "' is not defined in the kernel");
        }
        if ((in.parts[0] == "ld" || in.parts[0] == "st") && !in.has("param")) checkVectorData(in, fail);
    }
}

// The element type of a demangled parameter type: what a pointer points to ("bool const*" -> Bool,
// "float4*" -> F32), or the scalar's own type.
ElementType elementOf(std::string type) {
    for (const char* qualifier : {"const", "volatile", "__restrict", "*", "&"})
        for (size_t at; (at = type.find(qualifier)) != std::string::npos;) type.erase(at, std::strlen(qualifier));
    type.erase(0, type.find_first_not_of(' '));
    type.erase(type.find_last_not_of(' ') + 1);
    static const std::map<std::string, ElementType> named = {{"bool", ElementType::Bool},
                                                             {"char", ElementType::I8},
                                                             {"signed char", ElementType::I8},
                                                             {"char8_t", ElementType::U8},
                                                             {"unsigned char", ElementType::U8},
                                                             {"short", ElementType::I16},
                                                             {"unsigned short", ElementType::U16},
                                                             {"char16_t", ElementType::U16},
                                                             {"unsigned int", ElementType::U32},
                                                             {"unsigned", ElementType::U32},
                                                             {"float", ElementType::F32},
                                                             {"long", ElementType::I64},
                                                             {"long long", ElementType::I64},
                                                             {"unsigned long", ElementType::U64},
                                                             {"unsigned long long", ElementType::U64}};
    if (auto it = named.find(type); it != named.end()) return it->second;
    // CUDA's vectors (float4, uchar3, ...) by their element
    static const std::vector<std::pair<std::string, ElementType>> vectors = {
        {"float", ElementType::F32}, {"uint", ElementType::U32},   {"uchar", ElementType::U8},
        {"char", ElementType::I8},   {"ushort", ElementType::U16}, {"short", ElementType::I16},
        {"ulong", ElementType::U64}, {"long", ElementType::I64}};
    for (const auto& [prefix, element] : vectors)
        if (type.rfind(prefix, 0) == 0) return element;
    return ElementType::I32;
}

// A scalar parameter's type from its PTX type alone (extern "C" kernels have no demangled signature).
ElementType elementOfPtx(const std::string& type) {
    static const std::map<std::string, ElementType> named = {
        {"f32", ElementType::F32}, {"u8", ElementType::U8},   {"s8", ElementType::I8},
        {"b8", ElementType::U8},   {"u16", ElementType::U16}, {"s16", ElementType::I16},
        {"b16", ElementType::U16}, {"u64", ElementType::U64}, {"s64", ElementType::I64}};
    auto it = named.find(type);
    return it == named.end() ? ElementType::I32 : it->second;
}

}  // namespace

Selection Selector::run() {
    m_cur = newBlock();
    std::vector<std::vector<std::string>> labelsAt(m_fn.body.size() + 1);  // in the order of their names
    for (const auto& [label, index] : m_fn.labels) labelsAt[std::min(index, m_fn.body.size())].push_back(label);
    for (size_t i = 0; i <= m_fn.body.size(); ++i) {
        for (const std::string& label : labelsAt[i]) enterLabel(label);
        if (i == m_fn.body.size()) break;
        m_in = &m_fn.body[i];
        statement(*m_in);
    }
    if (!block().terminated) terminate(Opcode::Exit);
    emitRoutines();
    auto uses = [&](const char* prefix) {
        return std::any_of(m_routines.begin(), m_routines.end(),
                           [&](const auto& r) { return r.first.rfind(prefix, 0) == 0; });
    };
    m_out.usesFma = uses("fma.f32");
    m_out.fmaBesideAddOrMul = m_out.usesFma && (uses("add.f32") || uses("mul.f32"));
    for (auto& b : m_out.program.blocks)
        if (!b.terminated) {  // an unreachable block opened after a jump
            b.term.op = Opcode::Exit;
            b.terminated = true;
        }
    m_out.program.vregCount = m_nextVreg;
    return std::move(m_out);
}

void Selector::placeShared() {
    for (const auto& s : m_module.shared) {
        if (s.dynamic) continue;
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
                                         "the kernel's __shared__ arrays need " + std::to_string(m_out.sharedWords) +
                                             " words but a thread block has " + std::to_string(m_spec.sharedWords) +
                                             ": " + names + "; make them smaller"});
    }
    for (const auto& s : m_module.shared)  // every extern __shared__ array starts where the static ones end
        if (s.dynamic) {
            m_out.shared.push_back({s.name, m_out.sharedWords, 0});
            m_out.dynamicShared = s.name;
        }
}

// Pointer parameters come from the mangled signature (extern "C" kernels: every .u64 is a pointer).
void Selector::describeParams(const std::vector<std::string>& names) {
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
        if (p.arrayBytes > 0) {  // in memory (structParamsInMemory): the launch gives its bytes
            m_out.params.push_back({name, true, ElementType::U8, int(p.arrayBytes)});
            m_paramIndex[p.name] = int(i);
            continue;
        }
        static const std::set<std::string> scalarTypes = {"u32", "s32", "b32", "f32", "u8",  "s8",
                                                          "b8",  "u16", "s16", "b16", "u64", "s64"};
        if (!pointer && !scalarTypes.count(p.type))
            throw DiagnosticError(Diagnostic{m_cudaFile, 0, 0,
                                             "parameter '" + name + "' has PTX type ." + p.type +
                                                 "; kernels take bool, char, short, int, long long, their "
                                                 "unsigned types and float as scalars and pointers to them (or to "
                                                 "CUDA's vectors of them)"});
        ElementType element = i < types.size() ? elementOf(types[i])
                              : pointer        ? ElementType::I32
                                               : elementOfPtx(p.type);
        m_out.params.push_back({name, pointer, element});
        m_paramIndex[p.name] = int(i);
    }
}

// 32-bit registers written once, by a mov of an immediate (prmt's selector arrives that way).
void Selector::findConstants() {
    std::map<std::string, int> defs;
    for (const auto& in : m_fn.body)
        if (!in.operands.empty() && in.operands[0].kind == Kind::Reg) defs[in.operands[0].name]++;
    for (const auto& in : m_fn.body)
        if (in.parts[0] == "mov" && in.guard.empty() && in.operands.size() == 2 && in.operands[1].kind == Kind::Imm &&
            !in.operands[1].isFloat && defs[in.operands[0].name] == 1)
            m_constants[in.operands[0].name] = in.operands[1].value;
}

std::optional<int64_t> Selector::constantOf(const Operand& o) const {
    if (o.kind == Kind::Imm) return o.value;
    auto it = m_constants.find(o.name);
    return it == m_constants.end() ? std::nullopt : std::optional<int64_t>(it->second);
}

Wide Selector::wideOf(const Operand& o) const {
    if (o.kind == Kind::Reg && isWideReg(o.name)) {
        auto it = m_wide.find(o.name);
        return it == m_wide.end() ? Wide{} : it->second;
    }
    return {};
}

int Selector::newBlock() {
    m_out.program.blocks.emplace_back();
    return int(m_out.program.blocks.size() - 1);
}

int Selector::labelBlock(const std::string& label) {
    auto it = m_labelBlocks.find(label);
    if (it != m_labelBlocks.end()) return it->second;
    if (!m_fn.labels.count(label)) fail("branch to unknown label " + label);
    return m_labelBlocks[label] = newBlock();
}

void Selector::enterLabel(const std::string& label) {
    int b = labelBlock(label);
    if (!block().terminated) terminate(Opcode::Jmp, b);
    m_cur = b;
}

void Selector::terminate(Opcode op, int target, int elseTarget, int cond) {
    VBlock& b = block();
    b.term = located(op);
    b.term.rc = cond;
    b.target = target;
    b.elseTarget = elseTarget;
    b.terminated = true;
}

int Selector::vreg(const std::string& name) {
    if (name.rfind("%fd", 0) == 0 || name.rfind("%h", 0) == 0) fail(kOtherFloat);
    auto it = m_vregs.find(name);
    if (it != m_vregs.end()) return it->second;
    m_out.program.ptxVregs.insert(m_nextVreg);
    if (m_fn.isFloatRegister(name)) m_out.program.floatVregs.insert(m_nextVreg);
    return m_vregs[name] = m_nextVreg++;
}

VInst Selector::located(Opcode op) const {
    VInst v;
    v.op = op;
    if (m_in) v.loc = m_in->cudaLoc, v.ptxLine = m_in->ptxLine;
    return v;
}

// The second source operand, evaluated (and any conversion emitted) before its instruction.
B Selector::bOf(const Operand& o) {
    if (o.kind != Kind::Imm) return reg(reg32(o));
    if (o.isFloat && (o.name.rfind("0d", 0) == 0 || o.name.rfind("0D", 0) == 0)) fail(kOtherFloat);
    return imm(o.value);
}

// Operands must be evaluated before the call: evaluating them may emit conversions.
void Selector::emit(Opcode op, int rd, int rs1, B b, int rc) {
    VInst v = located(op);
    v.rd = rd, v.rs1 = rs1, v.rc = rc;
    v.useImm = b.isImm, v.imm = b.value, v.rs2 = b.reg;
    block().body.push_back(v);
}

void Selector::emitSymbol(int rd, const std::string& symbol) {
    VInst v = located(Opcode::Mov);
    v.rd = rd, v.useImm = true, v.immSymbol = symbol;
    block().body.push_back(v);
}

// A 32-bit value in a register (immediates get a mov).
int Selector::reg32(const Operand& o) {
    if (o.kind == Kind::Reg) return isWideReg(o.name) ? asByte(o) : vreg(o.name);
    if (o.kind != Kind::Imm) fail("unexpected operand " + o.name);
    B b = bOf(o);
    int t = temp();
    emit(Opcode::Mov, t, kZeroReg, b);
    return t;
}

void Selector::statement(const ptx::Instruction& in) {
    const std::string& op = in.parts[0];
    if (mentionsOtherFloat(in)) fail(kOtherFloat);
    for (const auto& o : in.operands) {
        for (const auto& global : m_module.globals)
            if (o.name == global.name && !global.unsupported.empty()) failGlobal(global);
    }
    if (op == "bra") return branch(in);
    if (!in.guard.empty()) return guarded(in);
    if (op == "ret" || op == "exit" || (op == "trap" && in.has("callstack"))) {
        if (op == "trap") callStackFull();
        terminate(Opcode::Exit);
        m_cur = newBlock();
        return;
    }
    if (op == "qgpu") return callStackSlot(in);
    if ((op == "bar" || op == "barrier") && !in.has("warp")) {
        int next = newBlock();
        terminate(Opcode::Bar, next);
        m_cur = next;
        return;
    }
    select(in);
}

void Selector::branch(const ptx::Instruction& in) {
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
void Selector::guarded(const ptx::Instruction& in) {
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

// A global variable's name as CUDA writes it: Clang names a local table with an initializer
// __const_$<kernel>_$_t.
std::string Selector::globalName(const std::string& symbol) const {
    size_t at = symbol.rfind("_$_");
    if (symbol.rfind("__const_$", 0) != 0 || at == std::string::npos) return symbol;
    std::string name = symbol.substr(at + 3);
    for (const auto& g : m_module.globals)  // two tables of one name keep Clang's names
        if (g.name != symbol && g.name.size() >= name.size() &&
            g.name.rfind("_$_" + name) == g.name.size() - name.size() - 3)
            return symbol;
    return name;
}

void Selector::failGlobal(const ptx::GlobalVariable& global) const {
    fail("'" + globalName(global.name) + "' cannot be placed in the machine's global memory: " + global.unsupported);
}

// __device__ and __constant__ variables go after the launch's arrays (the linker places them). Clang
// declares initialized data as bytes; the alignment tells a table of bytes (1), shorts (2) or 64-bit
// integers (8) from words.
void Selector::placeGlobals() {
    std::set<std::string> used;
    for (const auto& in : m_fn.body)
        for (const auto& o : in.operands) used.insert(o.name);
    for (const auto& g : m_module.globals) {
        if (!g.unsupported.empty() || !used.count(g.name)) continue;
        int bytes = g.alignment == 1 || g.bytes.size() % 2   ? 1
                    : g.alignment == 2 || g.bytes.size() % 4 ? 2
                    : g.alignment < 8 || g.bytes.size() % 8  ? 4
                                                             : 8;
        ElementType element = bytes == 1   ? ElementType::U8
                              : bytes == 2 ? ElementType::I16
                              : bytes == 4 ? ElementType::I32
                                           : ElementType::I64;
        std::vector<int32_t> words((g.bytes.size() + 3) / 4, 0);
        for (size_t i = 0; i < g.bytes.size(); ++i) words[i / 4] |= int32_t(uint32_t(g.bytes[i]) << (8 * (i % 4)));
        m_out.globals.push_back(
            {globalName(g.name), element, unpackElements(words, element, g.bytes.size() / size_t(bytes))});
    }
    if (readsClock() && !isGlobalSymbol(kClockCounterName))
        m_out.globals.push_back({kClockCounterName, ElementType::I32, {0}});
}

bool Selector::readsClock() const {
    return std::any_of(m_fn.body.begin(), m_fn.body.end(), [](const ptx::Instruction& in) {
        return std::any_of(in.operands.begin(), in.operands.end(),
                           [](const Operand& o) { return o.kind == Kind::Special && isClockRegister(o.name); });
    });
}

bool Selector::isLocalSymbol(const std::string& name) const { return m_out.localOffsets.count(name) > 0; }

// Local arrays (Clang's __local_depot: local arrays indexed at run time, and every variable at -O0) share
// one frame per thread, word-aligned one after another.
void Selector::placeLocals() {
    for (const auto& l : m_module.locals) {
        m_out.localOffsets[l.name] = m_out.localWords;
        m_out.localWords += int((l.bytes + 3) / 4);
    }
}

// The word address of this thread's frame (frameAddress: the linker places the frames).
void Selector::frameBase(int rd) {
    SourceLoc loc = located(Opcode::Mov).loc;
    for (const VInst& v : frameAddress(rd, m_spec.lanesPerWarp, m_nextVreg, loc)) block().body.push_back(v);
}

bool Selector::isGlobalSymbol(const std::string& name) const {
    for (const auto& g : m_module.globals)
        if (g.name == name) return true;
    return false;
}

void Selector::requireInt32(const ptx::Instruction& in) {
    std::string t = typeOf(in);
    if (t == "s64" || t == "u64" || t == "b64") fail("64-bit integer arithmetic is not supported: use int");
}

void Selector::select(const ptx::Instruction& in) {
    const std::string& op = in.parts[0];
    const auto& o = in.operands;
    if (in.has("sat") && !isFloatOperation(in))  // inline PTX: selected without it, the result would be wrong
        fail("saturating integer arithmetic (" + in.opcode + ") is not supported: clamp with min and max");
    if (op == "ld" && in.has("param")) return loadParam(in);
    if (op == "ld" || op == "st" || op == "atom" || op == "red") return memory(in);
    if (op == "shfl") return shuffle(in);
    if (op == "mov" && (o.at(0).kind == Kind::Vector || o.at(1).kind == Kind::Vector)) return packedMove(in);
    if (op == "mov" && o.at(1).kind == Kind::Special && isClockRegister(o[1].name)) return readClock(o[0]);
    if (isFloatOperation(in)) return floatOperation(in);
    if (op == "membar" || op == "fence" || (op == "bar" && in.has("warp"))) return;  // lanes run in lockstep
    if (!o.empty() && isPair(o[0])) return pairOperation(in);
    if ((op == "popc" || op == "clz") && is64BitType(typeOf(in))) return pairCount(in);
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

std::optional<Opcode> Selector::aluOpcode(const ptx::Instruction& in) const {
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

void Selector::move(const ptx::Instruction& in) {
    const Operand& src = in.operands.at(1);
    int rd = vreg(in.operands[0].name);
    if (src.kind == Kind::Special && src.name.rfind("%lanemask_", 0) == 0) return laneMask(rd, src.name.substr(10));
    if (src.kind == Kind::Special) {
        static const std::map<std::string, SpecialReg> specials = {
            {"%tid.x", SpecialReg::TidX},       {"%tid.y", SpecialReg::TidY},       {"%tid.z", SpecialReg::TidZ},
            {"%ntid.x", SpecialReg::NtidX},     {"%ntid.y", SpecialReg::NtidY},     {"%ntid.z", SpecialReg::NtidZ},
            {"%ctaid.x", SpecialReg::CtaidX},   {"%ctaid.y", SpecialReg::CtaidY},   {"%ctaid.z", SpecialReg::CtaidZ},
            {"%nctaid.x", SpecialReg::NctaidX}, {"%nctaid.y", SpecialReg::NctaidY}, {"%nctaid.z", SpecialReg::NctaidZ},
            {"%laneid", SpecialReg::LaneId},    {"%warpid", SpecialReg::WarpId}};
        auto it = specials.find(src.name);
        if (it == specials.end()) fail("special register " + src.name + " is not available on this machine");
        return emit(Opcode::Sreg, rd, kZeroReg, imm(int64_t(it->second)));
    }
    requireInt32(in);
    B b = bOf(src);
    emit(Opcode::Mov, rd, kZeroReg, b);
}

// mov.b32 %r, {%h0, %h1} packs halfwords (or four bytes) into a word, lowest first; mov.b32 {%h0, %h1}, %r
// takes them apart (a part's bits above its width are undefined, as for every 8- and 16-bit register).
void Selector::packedMove(const ptx::Instruction& in) {
    const auto& o = in.operands;
    bool pack = o[1].kind == Kind::Vector;
    std::vector<Operand> parts = vectorElements(pack ? o[1] : o[0]);
    int bits = bitsOf(typeOf(in));
    if (bits > 64 || parts.empty() || bits % int(parts.size()) || (bits == 64 && parts.size() != 2))
        fail("packing 64-bit values ('" + in.opcode + "') is not supported: the machine's words are 32 bits");
    if (bits == 64) return packedPair(in, pack, parts);
    int width = bits / int(parts.size());
    if (!pack) {
        int whole = reg32(o[1]);
        for (size_t i = 0; i < parts.size(); ++i)
            if (parts[i].kind == Kind::Reg)
                emit(i == 0 ? Opcode::Mov : Opcode::Shr, vreg(parts[i].name), i == 0 ? kZeroReg : whole,
                     i == 0 ? reg(whole) : imm(int64_t(i) * width));
        return;
    }
    uint32_t mask = width == 32 ? 0xffffffffu : (1u << width) - 1;
    int packed = lowering::op(*this, Opcode::And, reg32(parts[0]), imm(mask));
    for (size_t i = 1; i < parts.size(); ++i) {
        int part = lowering::op(*this, Opcode::And, reg32(parts[i]), imm(mask));
        int placed = lowering::op(*this, Opcode::Shl, part, imm(int64_t(i) * width));
        packed = lowering::op(*this, Opcode::Or, packed, reg(placed));
    }
    emit(Opcode::Mov, vreg(o[0].name), kZeroReg, reg(packed));
}

bool Selector::isClockRegister(const std::string& name) {
    return name == "%clock" || name == "%clock64" || name == "%globaltimer";
}

// The machine's clock: an atomic add of 1 to its counter, which placeGlobals puts in global memory. The count
// fits a 64-bit destination's low word.
void Selector::readClock(const Operand& destination) {
    bool pair = isPair(destination);
    int rd = pair ? pairRegs(destination.name).lo : vreg(destination.name);
    int counter = temp(), one = lowering::mov(*this, imm(1));
    emitSymbol(counter, kClockCounterName);
    VInst v = located(Opcode::AtomGlobal);
    v.rd = rd, v.rs1 = counter, v.imm = 0, v.rs2 = one;
    block().body.push_back(v);
    if (pair) emit(Opcode::Mov, pairRegs(destination.name).hi, kZeroReg, imm(0));
}

// %lanemask_eq/lt/le/gt/ge: the lanes of a 32-lane view at, below, up to, above or from the calling lane.
void Selector::laneMask(int rd, const std::string& which) {
    int lane = temp();
    emit(Opcode::Sreg, lane, kZeroReg, imm(int64_t(SpecialReg::LaneId)));
    int eq = lowering::op(*this, Opcode::Shl, lowering::mov(*this, imm(1)), reg(lane));
    if (which == "eq") return copy(*this, rd, eq);
    int lt = lowering::op(*this, Opcode::Sub, eq, imm(1));
    if (which == "lt") return copy(*this, rd, lt);
    if (which == "ge") return emit(Opcode::Xor, rd, lt, imm(0xffffffffu));
    int le = lowering::op(*this, Opcode::Or, lt, reg(eq));
    if (which == "le") return copy(*this, rd, le);
    if (which == "gt") return emit(Opcode::Xor, rd, le, imm(0xffffffffu));
    fail("special register %lanemask_" + which + " does not exist (eq, lt, le, gt, ge do)");
}

void Selector::compare(const ptx::Instruction& in) {
    if (in.parts.size() != 3) fail("compound predicate compares are not supported");
    static const std::map<std::string, Opcode> sgn = {{"eq", Opcode::SetEq}, {"ne", Opcode::SetNe},
                                                      {"lt", Opcode::SetLt}, {"le", Opcode::SetLe},
                                                      {"gt", Opcode::SetGt}, {"ge", Opcode::SetGe}};
    static const std::map<std::string, Opcode> uns = {
        {"eq", Opcode::SetEq},  {"ne", Opcode::SetNe},  {"lt", Opcode::SetLtU}, {"le", Opcode::SetLeU},
        {"gt", Opcode::SetGtU}, {"ge", Opcode::SetGeU}, {"lo", Opcode::SetLtU}, {"ls", Opcode::SetLeU},
        {"hi", Opcode::SetGtU}, {"hs", Opcode::SetGeU}};
    std::string type = typeOf(in);
    const auto& table = type[0] == 's' ? sgn : uns;
    auto it = table.find(in.parts[1]);
    if (it == table.end()) fail("unsupported comparison ." + in.parts[1]);
    const auto& o = in.operands;
    if (is64BitType(type) && (isPair(o[1]) || isPair(o[2]))) return pairCompare(in);
    // Pointers compare as word addresses, unless one of them holds a byte address (a char pointer).
    bool wide64 = type.size() > 1 && type.substr(1) == "64";
    bool words = wide64 && (wideOf(o[1]).rep == Rep::Word || wideOf(o[2]).rep == Rep::Word) && !isByteAddress(o[1]) &&
                 !isByteAddress(o[2]);
    int a = words ? asWord(o[1]) : reg32(o[1]);
    if (words && o[2].kind == Kind::Imm && o[2].value % 4)
        fail("a pointer compared with a byte address that is not a whole word");
    B b = !words ? bOf(o[2]) : o[2].kind == Kind::Reg ? reg(asWord(o[2])) : imm(o[2].value / 4);
    emit(it->second, vreg(o[0].name), a, b);
}

// CUDA's warp has 32 lanes, the machine's 4. A shuffle that spans more lanes than the machine's warp, or
// reaches a lane or offset past it (a constant, or a constant moved into its register), can only have been
// written for 32-thread warps: here each lane would read its own quad (or keep its own value), a different
// answer from a GPU's, so it is refused.
void Selector::refuseWiderThanTheWarp(const std::string& mode, int width, const ptx::Operand& b) const {
    const int lanes = m_spec.lanesPerWarp;
    const std::string why = "; CUDA's warp has 32 threads but qgpu's has " + std::to_string(lanes) +
                            ", so code written for 32-thread warps would give a different answer here. Write "
                            "the lanes and offsets from warpSize (for (int offset = warpSize / 2; offset > 0; "
                            "offset /= 2)), and a width of at most " +
                            std::to_string(lanes) + " (docs/qgpu-cuda.md)";
    if (width > lanes) fail("this shuffle spans " + std::to_string(width) + " lanes (its width)" + why);
    // A register operand: the constants moved into it (a loop's first offset, such as 16).
    std::vector<int64_t> values;
    if (b.kind == Kind::Imm) values.push_back(b.value);
    for (const ptx::Instruction& in : m_fn.body)
        if (b.kind == Kind::Reg && in.parts[0] == "mov" && in.operands.size() == 2 && in.operands[0].name == b.name &&
            in.operands[1].kind == Kind::Imm)
            values.push_back(in.operands[1].value);
    for (int64_t v : values) {
        if (int(v & 31) < width) continue;
        const char* what = mode == "idx"    ? "reads lane "
                           : mode == "bfly" ? "exchanges across lane mask "
                                            : "has offset ";
        fail("this shuffle " + std::string(what) + std::to_string(v & 31) + ", past the warp" + why);
    }
}

void Selector::shuffle(const ptx::Instruction& in) {
    const auto& o = in.operands;
    if (o.size() < 4 || o[3].kind != Kind::Imm)
        fail(std::string("shuffles need a constant width") +
             (m_module.debug ? " (at -O0 Clang computes it at run time: build with -O1 or higher)" : ""));
    static const std::map<std::string, Opcode> modes = {
        {"idx", Opcode::ShflIdx}, {"up", Opcode::ShflUp}, {"down", Opcode::ShflDown}, {"bfly", Opcode::ShflBfly}};
    auto mode = modes.find(in.parts.size() > 2 ? in.parts[2] : "");
    if (mode == modes.end()) fail("unsupported shuffle mode");
    // c = segment mask << 8 | clamp; the width is the number of lanes the segment mask leaves free.
    int segmask = int((o[3].value >> 8) & 31), width = ((~segmask) & 31) + 1;
    refuseWiderThanTheWarp(mode->first, width, o[2]);
    uint8_t log2 = 0;
    while ((2 << log2) <= width) ++log2;
    int a = reg32(o[1]);
    B b = bOf(o[2]);
    emit(mode->second, vreg(o[0].name), a, b);
    block().body.back().aux = log2;
}

Selection selectInstructions(const ptx::Module& module, const std::vector<std::string>& paramNames,
                             const std::string& cudaFile, const MachineSpec& spec, int callDepth,
                             bool addMulThroughFma) {
    const ptx::Function* kernel = nullptr;
    for (const auto& f : module.functions) {
        if (!f.isEntry) continue;
        if (kernel)
            throw DiagnosticError(
                Diagnostic{cudaFile, 0, 0, "the file defines more than one __global__ kernel; keep one per file"});
        kernel = &f;
    }
    if (!kernel) throw DiagnosticError(Diagnostic{cudaFile, 0, 0, "the file defines no __global__ kernel"});
    InlinedKernel calls = inlineCalls(module, *kernel, cudaFile, callDepth);
    ptx::Function inlined = structParamsInMemory(calls.function);
    checkOperandForms(inlined, cudaFile);
    if (!calls.callStackBytes) return Selector(module, inlined, paramNames, cudaFile, spec, addMulThroughFma).run();
    ptx::Module withStack = module;
    withStack.locals.push_back({kCallStackArray, calls.callStackBytes, false});
    return Selector(withStack, inlined, paramNames, cudaFile, spec, addMulThroughFma).run();
}

}  // namespace qgpu::lowering
