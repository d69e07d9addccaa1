#include "qgpu/core/Assembler.h"

#include <cctype>
#include <charconv>
#include <map>
#include <sstream>
#include <unordered_map>

#include "qgpu/core/Diagnostic.h"

namespace qgpu {
namespace {

struct Operand {
    std::string text;
    int column = 1;
};

class LineParser {
public:
    LineParser(const std::string& file, int line, std::vector<Diagnostic>& diags)
        : m_file(file), m_line(line), m_diags(diags) {}

    void error(int column, std::string msg) {
        m_diags.push_back({m_file, m_line, column, std::move(msg)});
        m_ok = false;
    }
    bool ok() const { return m_ok; }

    std::optional<uint8_t> reg(const Operand& o) {
        const std::string& t = o.text;
        if (t.size() >= 2 && t[0] == 'r') {
            int n = -1;
            auto [p, ec] = std::from_chars(t.data() + 1, t.data() + t.size(), n);
            if (ec == std::errc() && p == t.data() + t.size() && n >= 0 && n < 16) return uint8_t(n);
        }
        error(o.column, "expected a register r0..r15, found '" + t + "'");
        return std::nullopt;
    }

    bool isReg(const Operand& o) const {
        return o.text.size() >= 2 && o.text[0] == 'r' && std::isdigit(static_cast<unsigned char>(o.text[1]));
    }

    // Integer literal (decimal, 0x hex, leading minus) or `$symbol`; wraps to 32 bits.
    bool immediate(const Operand& o, Instruction& in) {
        const std::string& t = o.text;
        if (!t.empty() && t[0] == '$') {
            if (t.size() < 2) {
                error(o.column, "empty symbol name after '$'");
                return false;
            }
            in.immSymbol = t.substr(1);
            return true;
        }
        bool neg = !t.empty() && t[0] == '-';
        std::string_view digits(t);
        if (neg) digits.remove_prefix(1);
        int base = 10;
        if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) {
            base = 16;
            digits.remove_prefix(2);
        }
        uint64_t v = 0;
        auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v, base);
        if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size() || v > 0xFFFFFFFFull) {
            error(o.column, "expected a register, a 32-bit integer or $name, found '" + t + "'");
            return false;
        }
        in.imm = neg ? uint32_t(0u - uint32_t(v)) : uint32_t(v);
        return true;
    }

    // The `b` operand: a register or an immediate.
    void regOrImm(const Operand& o, Instruction& in) {
        if (isReg(o)) {
            if (auto r = reg(o)) in.rs2 = *r;
        } else {
            in.useImm = immediate(o, in);
        }
    }

    // `[rX]`, `[rX + k]`, `[rX - k]`, `[k]`, with k an integer or $name.
    void address(const Operand& o, Instruction& in) {
        const std::string& t = o.text;
        if (t.size() < 2 || t.front() != '[' || t.back() != ']') {
            error(o.column, "expected a memory operand like [r1 + 4], found '" + t + "'");
            return;
        }
        std::string inner;
        for (char c : t.substr(1, t.size() - 2))
            if (!std::isspace(static_cast<unsigned char>(c))) inner += c;
        size_t split = inner.find_first_of("+-", 1);
        std::string base = inner, off;
        if (!inner.empty() && inner[0] == 'r' && split != std::string::npos) {
            base = inner.substr(0, split);
            off = inner.substr(split + (inner[split] == '+' ? 1 : 0));
        }
        if (!base.empty() && base[0] == 'r' && isReg({base, o.column})) {
            if (auto r = reg({base, o.column})) in.rs1 = *r;
            if (!off.empty()) immediate({off, o.column}, in);
        } else {
            immediate({inner, o.column}, in);
        }
    }

private:
    const std::string& m_file;
    int m_line;
    std::vector<Diagnostic>& m_diags;
    bool m_ok = true;
};

std::vector<Operand> splitOperands(const std::string& text, int column0) {
    std::vector<Operand> out;
    std::string cur;
    int start = column0, depth = 0;
    for (size_t i = 0; i <= text.size(); ++i) {
        char c = i < text.size() ? text[i] : ',';
        if (c == '[') depth++;
        if (c == ']') depth--;
        if (c == ',' && depth == 0) {
            size_t b = cur.find_first_not_of(" \t"), e = cur.find_last_not_of(" \t");
            if (b != std::string::npos)
                out.push_back({cur.substr(b, e - b + 1), start + int(b)});
            else
                out.push_back({"", start});
            cur.clear();
            start = column0 + int(i) + 1;
        } else {
            cur += c;
        }
    }
    if (out.size() == 1 && out[0].text.empty()) out.clear();
    return out;
}

size_t expectedOperands(OperandForm f) {
    switch (f) {
        case OperandForm::None: return 0;
        case OperandForm::Target: return 1;
        case OperandForm::Warning:
        case OperandForm::RdB:
        case OperandForm::RdA:
        case OperandForm::RdSreg:
        case OperandForm::Load:
        case OperandForm::Store: return 2;
        case OperandForm::RdAB:
        case OperandForm::Atomic:
        case OperandForm::CondTargets: return 3;
        case OperandForm::RdABC:
        case OperandForm::Shuffle: return 4;
    }
    return 0;
}

// rd, rs1 and the `b` operand, the first three operands of RdAB, RdABC and Shuffle.
void parseRdAB(LineParser& p, const std::vector<Operand>& ops, Instruction& in) {
    if (auto r = p.reg(ops[0])) in.rd = *r;
    if (auto r = p.reg(ops[1])) in.rs1 = *r;
    p.regOrImm(ops[2], in);
}

void parseSpecialReg(LineParser& p, const Operand& o, Instruction& in) {
    if (auto s = specialRegFromName(o.text))
        in.imm = uint32_t(*s);
    else
        p.error(o.column,
                "unknown special register '" + o.text + "' (tid.x, ntid.x, ctaid.x, nctaid.x, laneid, warpid, ...)");
}

// A shuffle's width operand: a power of two up to the warp's lane count, stored as its log2 in in.aux.
void parseShuffleWidth(LineParser& p, const Operand& o, Instruction& in, int lanesPerWarp) {
    const std::string& w = o.text;
    int width = 0;
    for (int k = 0; (1 << k) <= lanesPerWarp; ++k)
        if (w == std::to_string(1 << k)) width = 1 << k, in.aux = uint8_t(k);
    if (!width) p.error(o.column, "shuffle width must be 1, 2 or 4, found '" + w + "'");
}

void parseWarning(LineParser& p, const Operand& o, Instruction& in) {
    if (auto w = machineWarningFromName(o.text))
        in.imm = uint32_t(*w);
    else
        p.error(o.column, "unknown warning '" + o.text + "' (divzero, divoverflow, stackfull)");
}

struct PendingTarget {
    int block, column, line;
    std::string label;
    bool isElse;
};

class Assembler {
public:
    Assembler(const std::string& file, const MachineSpec& spec) : m_file(file), m_spec(spec) {}

    Program run(std::string_view text) {
        std::istringstream in{std::string(text)};
        std::string line;
        for (int n = 1; std::getline(in, line); ++n) {
            parseLine(line, n);
            if (m_diags.size() >= kMaxErrors) {
                diag(n, 1, "stopping after " + std::to_string(kMaxErrors) + " errors; fix these first");
                throw DiagnosticError(m_diags);
            }
        }
        if (m_open)
            diag(m_openLine, 1, "block " + currentName() + " does not end with a terminator (jmp, br, bar or exit)");
        if (m_prog.blocks.size() > kMaxBlocks) {
            diag(1, 1,
                 "the program has " + std::to_string(m_prog.blocks.size()) +
                     " blocks; branch targets are 16-bit, "
                     "so a program holds at most " +
                     std::to_string(kMaxBlocks));
            throw DiagnosticError(m_diags);
        }
        resolveTargets();
        nameUnlabelledBlocks();
        if (m_prog.blocks.empty() && m_diags.empty()) diag(1, 1, "the program has no blocks; write at least `exit`");
        if (!m_diags.empty()) throw DiagnosticError(m_diags);
        return std::move(m_prog);
    }

private:
    static constexpr size_t kMaxErrors = 100;
    static constexpr size_t kMaxBlocks = 65535;  // a file of garbage gets the first hundred, not one per line

    void diag(int line, int col, std::string msg) { m_diags.push_back({m_file, line, col, std::move(msg)}); }
    // The block a user label names, -1 if none (a map: Program::blockIndex is linear in the block count).
    int labelIndex(const std::string& label) const {
        auto it = m_labels.find(label);
        return it == m_labels.end() ? -1 : it->second;
    }
    Block& current() { return m_prog.blocks.back(); }
    std::string currentName() {
        return current().label.empty() ? "starting at line " + std::to_string(m_openLine) : "'" + current().label + "'";
    }

    void openBlock(std::string label, int line) {
        m_prog.blocks.push_back(Block{});
        current().label = std::move(label);  // unnamed blocks are named once all labels are known
        m_open = true;
        m_openLine = line;
    }

    void parseLine(std::string line, int n) {
        for (const char* marker : {";", "//", "#"}) {
            size_t c = line.find(marker);
            if (c != std::string::npos) line.resize(c);
        }
        size_t b = line.find_first_not_of(" \t\r");
        if (b == std::string::npos) return;
        size_t e = line.find_last_not_of(" \t\r");
        std::string body = line.substr(b, e - b + 1);
        int col = int(b) + 1;

        if (body.back() == ':') return parseLabel(body.substr(0, body.size() - 1), n, col);
        if (body[0] == '.') return parseDirective(body, n, col);

        size_t sp = body.find_first_of(" \t");
        std::string mnemonic = body.substr(0, sp);
        auto op = opcodeFromMnemonic(mnemonic);
        if (!op) return diag(n, col, "unknown instruction '" + mnemonic + "' (see docs/isa.md for the list)");
        std::string rest = sp == std::string::npos ? "" : body.substr(sp);
        parseInstruction(*op, splitOperands(rest, col + int(sp == std::string::npos ? body.size() : sp)), n, col);
    }

    void parseLabel(const std::string& label, int n, int col) {
        bool valid = !label.empty() && (std::isalpha(static_cast<unsigned char>(label[0])) || label[0] == '_');
        for (char c : label) valid = valid && (std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.');
        if (!valid) return diag(n, col, "invalid label '" + label + "': use letters, digits, '_' and '.'");
        if (labelIndex(label) >= 0) return diag(n, col, "label '" + label + "' is defined twice");
        if (m_open)
            diag(n, col,
                 "block " + currentName() + " ends without a terminator before label '" + label + "'; add `jmp " +
                     label + "`");
        openBlock(label, n);
        m_labels.emplace(label, int(m_prog.blocks.size()) - 1);
        current().labelLoc = {n, col};
    }

    void parseDirective(const std::string& body, int n, int col) {
        std::istringstream ss(body);
        std::string name, extra;
        long long value = -1;
        ss >> name;
        if (name != ".shared") return diag(n, col, "unknown directive '" + name + "' (only .shared N)");
        if (!(ss >> value) || (ss >> extra)) value = -1;
        if (value < 0 || value > m_spec.sharedWords)
            return diag(n, col, ".shared needs a word count between 0 and " + std::to_string(m_spec.sharedWords));
        m_prog.sharedWords = int(value);
    }

    void parseInstruction(Opcode op, const std::vector<Operand>& ops, int n, int col) {
        const OpcodeInfo& info = opcodeInfo(op);
        if (ops.size() != expectedOperands(info.form)) {
            if (info.terminator) m_open = false;  // a malformed terminator still ends its block
            return diag(n, col,
                        std::string(info.mnemonic) + " takes " + std::to_string(expectedOperands(info.form)) +
                            " operands, found " + std::to_string(ops.size()));
        }
        if (!m_open) openBlock("", n);
        Instruction in;
        in.op = op;
        LineParser p(m_file, n, m_diags);
        parseOperands(info.form, ops, n, p, in);
        if (info.terminator) m_open = false;  // even a malformed terminator ends its block
        if (!p.ok()) return;
        if (info.terminator) {
            current().terminator = in;
            current().terminatorLoc = {n, col};
            m_open = false;
            return;
        }
        if (int(current().body.size()) == m_spec.slotsPerBlock)
            return diag(n, col,
                        "block " + currentName() + " already has " + std::to_string(m_spec.slotsPerBlock) +
                            " instructions; end it with `jmp` to a new label first");
        current().body.push_back(in);
        current().bodyLocs.push_back({n, col});
    }

    // Fills `in` from the operands of an instruction of this form (errors go to p); branch targets are
    // queued for resolveTargets.
    void parseOperands(OperandForm form, const std::vector<Operand>& ops, int n, LineParser& p, Instruction& in) {
        switch (form) {
            case OperandForm::None: break;
            case OperandForm::RdAB: parseRdAB(p, ops, in); break;
            case OperandForm::RdB:
                if (auto r = p.reg(ops[0])) in.rd = *r;
                p.regOrImm(ops[1], in);
                break;
            case OperandForm::RdA:
                if (auto r = p.reg(ops[0])) in.rd = *r;
                if (auto r = p.reg(ops[1])) in.rs1 = *r;
                break;
            case OperandForm::RdABC:
                parseRdAB(p, ops, in);
                if (auto r = p.reg(ops[3])) in.rc = *r;
                break;
            case OperandForm::RdSreg:
                if (auto r = p.reg(ops[0])) in.rd = *r;
                parseSpecialReg(p, ops[1], in);
                break;
            case OperandForm::Load:
                if (auto r = p.reg(ops[0])) in.rd = *r;
                p.address(ops[1], in);
                break;
            case OperandForm::Store:
                p.address(ops[0], in);
                if (auto r = p.reg(ops[1])) in.rs2 = *r;
                break;
            case OperandForm::Atomic:
                if (auto r = p.reg(ops[0])) in.rd = *r;
                p.address(ops[1], in);
                if (auto r = p.reg(ops[2])) in.rs2 = *r;
                break;
            case OperandForm::Shuffle:
                parseRdAB(p, ops, in);
                parseShuffleWidth(p, ops[3], in, m_spec.lanesPerWarp);
                break;
            case OperandForm::Warning:
                if (auto r = p.reg(ops[0])) in.rc = *r;
                parseWarning(p, ops[1], in);
                break;
            case OperandForm::Target:
                m_pending.push_back({int(m_prog.blocks.size() - 1), ops[0].column, n, ops[0].text, false});
                break;
            case OperandForm::CondTargets:
                if (auto r = p.reg(ops[0])) in.rc = *r;
                m_pending.push_back({int(m_prog.blocks.size() - 1), ops[1].column, n, ops[1].text, false});
                m_pending.push_back({int(m_prog.blocks.size() - 1), ops[2].column, n, ops[2].text, true});
                break;
        }
    }

    // `_bN` (N = block index), with `_` appended until it collides with no user label.
    void nameUnlabelledBlocks() {
        for (size_t i = 0; i < m_prog.blocks.size(); ++i) {
            if (!m_prog.blocks[i].label.empty()) continue;
            std::string name = "_b" + std::to_string(i);
            while (labelIndex(name) >= 0) name += "_";
            m_labels.emplace(name, int(i));
            m_prog.blocks[i].label = name;
        }
    }

    void resolveTargets() {
        for (const auto& t : m_pending) {
            int idx = labelIndex(t.label);
            if (idx < 0) {
                diag(t.line, t.column, "unknown label '" + t.label + "'");
                continue;
            }
            Instruction& term = m_prog.blocks[size_t(t.block)].terminator;
            if (t.isElse)
                term.setTargets(term.target(), uint16_t(idx));
            else
                term.setTargets(uint16_t(idx), term.elseTarget());
        }
    }

    std::string m_file;
    MachineSpec m_spec;
    Program m_prog;
    std::vector<Diagnostic> m_diags;
    std::vector<PendingTarget> m_pending;
    std::unordered_map<std::string, int> m_labels;
    bool m_open = false;
    int m_openLine = 0;
};

std::string immText(const Instruction& in) {
    if (!in.immSymbol.empty()) return "$" + in.immSymbol;
    return std::to_string(int32_t(in.imm));
}

std::string bText(const Instruction& in) { return in.useImm ? immText(in) : "r" + std::to_string(in.rs2); }

std::string addrText(const Instruction& in) {
    std::string s = "[r" + std::to_string(in.rs1);
    if (in.imm != 0 || !in.immSymbol.empty()) s += " + " + immText(in);
    return s + "]";
}

std::string targetName(int idx, const Program* program) {
    if (program && idx < int(program->blocks.size())) return program->blocks[size_t(idx)].label;
    return "b" + std::to_string(idx);
}

}  // namespace

Program assemble(std::string_view text, const std::string& fileName, const MachineSpec& spec) {
    Program program = Assembler(fileName, spec).run(text);
    program.sourceFile = fileName;
    return program;
}

std::string disassemble(const Instruction& in, const Program* program) {
    const OpcodeInfo& info = opcodeInfo(in.op);
    std::string m(info.mnemonic), rd = "r" + std::to_string(in.rd), rs1 = "r" + std::to_string(in.rs1);
    switch (info.form) {
        case OperandForm::None: return m;
        case OperandForm::RdAB: return m + " " + rd + ", " + rs1 + ", " + bText(in);
        case OperandForm::RdB: return m + " " + rd + ", " + bText(in);
        case OperandForm::RdA: return m + " " + rd + ", " + rs1;
        case OperandForm::RdABC: return m + " " + rd + ", " + rs1 + ", " + bText(in) + ", r" + std::to_string(in.rc);
        case OperandForm::RdSreg:
            return m + " " + rd + ", " +
                   (in.imm < uint32_t(SpecialReg::Count_) ? std::string(specialRegName(SpecialReg(in.imm))) : "?");
        case OperandForm::Load: return m + " " + rd + ", " + addrText(in);
        case OperandForm::Store: return m + " " + addrText(in) + ", r" + std::to_string(in.rs2);
        case OperandForm::Atomic: return m + " " + rd + ", " + addrText(in) + ", r" + std::to_string(in.rs2);
        case OperandForm::Shuffle:
            return m + " " + rd + ", " + rs1 + ", " + bText(in) + ", " + std::to_string(1 << in.aux);
        case OperandForm::Target: return m + " " + targetName(in.target(), program);
        case OperandForm::Warning:
            return m + " r" + std::to_string(in.rc) + ", " +
                   (in.imm >= 1 && in.imm <= 3 ? std::string(machineWarningName(MachineWarning(in.imm))) : "?");
        case OperandForm::CondTargets:
            return m + " r" + std::to_string(in.rc) + ", " + targetName(in.target(), program) + ", " +
                   targetName(in.elseTarget(), program);
    }
    return m;
}

std::string disassemble(const Program& program) {
    std::string out;
    if (program.sharedWords) out += ".shared " + std::to_string(program.sharedWords) + "\n";
    for (const auto& b : program.blocks) {
        out += b.label + ":\n";
        for (const auto& in : b.body) out += "    " + disassemble(in, &program) + "\n";
        out += "    " + disassemble(b.terminator, &program) + "\n";
    }
    return out;
}

}  // namespace qgpu
