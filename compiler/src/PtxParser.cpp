#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <optional>
#include <set>
#include <sstream>
#include <utility>

#include "PtxParsing.h"
#include "PtxText.h"

namespace qgpu::ptx {

bool Function::isFloatRegister(const std::string& name) const {
    for (const std::string& declared : floatRegisters) {
        if (declared.back() != '<') {
            if (name == declared) return true;
            continue;
        }
        std::string prefix = declared.substr(0, declared.size() - 1);
        if (name.size() > prefix.size() && name.compare(0, prefix.size(), prefix) == 0 &&
            name.find_first_not_of("0123456789", prefix.size()) == std::string::npos)
            return true;
    }
    return false;
}

bool Instruction::has(const std::string& part) const {
    for (size_t i = 1; i < parts.size(); ++i)
        if (parts[i] == part) return true;
    return false;
}

namespace {

class Parser {
public:
    Parser(const std::string& file, const std::string& cudaFile) : m_file(file), m_cudaFile(cudaFile) {}

    Module run(const std::string& text) {
        if (!m_cudaFile.empty()) m_cudaFileNumber = cudaFileNumber(text);
        std::istringstream in(text);
        std::string raw;
        while (std::getline(in, raw)) {
            ++m_line;
            std::string comment;
            std::string line = trim(withoutComments(raw, comment));
            if (!line.empty()) {
                if (m_fn && m_inBody)
                    bodyLine(line);
                else
                    statement(line);
            }
            if (comment == "begin inline asm") beginInlineAsm();
            if (comment == "end inline asm") endInlineAsm();
        }
        if (m_inComment) {
            m_line = m_commentLine;
            fail("a '/*' comment is not closed with '*/'");
        }
        if (m_fn && m_depth > 0) {
            m_line = m_braceLines.back();
            fail("this '{' is not closed with '}'");
        }
        if (m_fn) fail("the function '" + m_fn->name + "' is not closed with '}'");
        attributeLinesToMainFile();
        return std::move(m_module);
    }

private:
    // An error in a function of PTX compiled from CUDA stands at the CUDA line the PTX came from.
    [[noreturn]] void fail(const std::string& msg) {
        std::string text = (m_inAsm ? "inline PTX: " : "PTX: ") + msg;
        if (!m_cudaFile.empty() && m_fn && m_cudaLoc.line > 0)
            throw DiagnosticError(Diagnostic{m_cudaFile, m_cudaLoc.line, m_cudaLoc.column,
                                             text + " (PTX line " + std::to_string(m_line) + ")"});
        throw DiagnosticError(Diagnostic{m_file, m_line, 0, text});
    }

    // The .file number of the .cu source, read ahead: .file lines come last in Clang's output.
    static int cudaFileNumber(const std::string& text) {
        std::map<int, std::string> files;
        std::istringstream in(text);
        for (std::string line; std::getline(in, line);) {
            line = trim(line);
            size_t q1 = line.find('"'), q2 = line.find('"', q1 + 1);
            if (directive(line, ".file") && q2 != std::string::npos)
                files[std::atoi(line.c_str() + 5)] = line.substr(q1 + 1, q2 - q1 - 1);
        }
        for (const auto& [n, name] : files)
            if (name.size() > 3 && name.substr(name.size() - 3) == ".cu") return n;
        return -1;
    }

    [[noreturn]] void failPending() {
        m_line = m_pendingLine;
        fail("expected ';' at the end of '" + m_pending + "'");
    }

    // The line without its comments; the text of a `//` comment goes to `lineComment` (Clang brackets inline
    // asm with `// begin inline asm` and `// end inline asm`). A `/* */` comment may span lines.
    std::string withoutComments(const std::string& raw, std::string& lineComment) {
        if (m_inComment && m_inAsm && trim(raw) == "// end inline asm") {
            m_line = m_commentLine;
            fail("a '/*' comment is not closed with '*/'");
        }
        std::string out;
        bool quoted = false;
        for (size_t i = 0; i < raw.size(); ++i) {
            if (m_inComment) {
                if (raw.compare(i, 2, "*/") == 0) {
                    m_inComment = false;
                    out += ' ';
                    ++i;
                }
                continue;
            }
            if (raw[i] == '"') quoted = !quoted;
            if (!quoted && raw.compare(i, 2, "//") == 0) {
                lineComment = trim(raw.substr(i + 2));
                break;
            }
            if (!quoted && raw.compare(i, 2, "/*") == 0) {
                m_inComment = true;
                m_commentLine = m_line;
                ++i;
                continue;
            }
            out += raw[i];
        }
        return out;
    }

    // A line of a function body may hold several statements: each ends at ';' (outside brackets and quotes), a
    // label at ':', and a '{' or '}' where a statement begins opens or closes a scope. Text left at the end of
    // the line continues on the next (Clang writes call sequences over several lines).
    void bodyLine(const std::string& line) {
        std::string cur;
        int depth = 0;
        bool quoted = false, blank = true;
        enum { None, Word, AfterWord, Other } shape = None;  // whether cur is one word (a label's name)
        auto reset = [&] {
            cur.clear();
            blank = true;
            shape = None;
        };
        for (size_t i = 0; i < line.size(); ++i) {
            char c = line[i];
            if (quoted) {
                cur += c;
                quoted = c != '"';
                continue;
            }
            if (depth == 0 && (c == '}' || (c == '{' && !takesOperand(cur)))) {  // a scope
                if (!blank) statement(trim(cur));
                reset();
                statement(std::string(1, c));
                if (!m_fn || !m_inBody) return outsideFunction(line.substr(i + 1));
                continue;
            }
            if (c == ':' && depth == 0 && shape != None && shape != Other && m_pending.empty() &&
                isIdentifier(trim(cur))) {
                statement(trim(cur) + ":");
                reset();
                continue;
            }
            quoted = c == '"';
            if (isOpen(c)) depth++;
            if (isClose(c) && depth > 0) depth--;
            cur += c;
            if (c == ' ' || c == '\t' || c == '\r') {
                if (shape == Word) shape = AfterWord;
            } else {
                blank = false;
                shape = (isNameChar(c) || c == '%') && (shape == None || shape == Word) ? Word : Other;
            }
            if (c == ';' && depth == 0) {
                statement(trim(cur));
                reset();
                if (!m_fn || !m_inBody) return outsideFunction(line.substr(i + 1));
            }
        }
        if (!blank) statement(trim(cur));
    }

    // The rest of a line after the '}' that closed its function.
    void outsideFunction(const std::string& rest) {
        std::string r = trim(rest);
        if (!r.empty()) statement(r);
    }

    // Whether a '{' after `cur` (and any statement pending from earlier lines) is an operand -- a vector, after
    // the instruction's name or a ',' -- rather than a scope.
    bool takesOperand(const std::string& cur) const {
        std::string text = trim(m_pending + " " + cur);
        if (text.empty()) return false;
        if (text.back() == ',') return true;
        if (text[0] == '@') {  // a guard, then the instruction
            size_t gap = text.find_first_of(" \t");
            if (gap == std::string::npos) return false;
            text = trim(text.substr(gap));
        }
        return !text.empty() && text.find_first_of(" \t") == std::string::npos;
    }

    // After a statement left without ';' on an earlier line, whether `text` begins a new statement (a guard or
    // an instruction) rather than continuing it. Clang continues only call sequences, after ',' and '('.
    bool startsStatement(const std::string& text) const {
        char last = m_pending.back();
        if (last == ',' || last == '(' || last == '[' || last == '{' || startsWith(m_pending, "call")) return false;
        if (text[0] == '@') return true;
        std::string word = text.substr(0, text.find_first_of(" \t;,"));
        return isInstructionName(word.substr(0, word.find('.')));
    }

    void beginInlineAsm() {
        if (!m_fn || !m_inBody) return;
        if (!m_pending.empty()) failPending();
        m_inAsm = true;
        m_asmDepth = m_depth;
    }

    // An inline asm statement is whole: its last statement ends with ';' and it closes each '{' it opens.
    void endInlineAsm() {
        if (!m_inAsm) return;
        if (!m_pending.empty()) failPending();
        if (m_depth > m_asmDepth) {
            m_line = m_braceLines[size_t(m_asmDepth)];
            fail("this '{' is not closed with '}' in its asm statement");
        }
        m_inAsm = false;
    }

    void statement(const std::string& line) {
        if (m_section) {  // a debug section's data, kept for -g's variables
            if (line.find('}') != std::string::npos)
                m_section = nullptr;
            else if (line != "{")
                m_section->push_back(line);
            return;
        }
        if (m_inParams) return param(line);
        if (m_awaitParams && line == "(") {
            m_awaitParams = false;
            m_inParams = true;
            return;
        }
        if (line == ";" && m_fn && !m_inBody) {  // the end of a prototype whose parameters were on their own lines
            m_fn.reset();
            return;
        }
        if (startsWith(line, ".target") && line.find("debug") != std::string::npos) m_module.debug = true;
        if (!m_pending.empty() && (line[0] == '.' || line == "}" || line == "{" || line.back() == ':')) failPending();
        if (startsWith(line, ".version") || startsWith(line, ".target") || startsWith(line, ".address_size")) return;
        if (startsWith(line, ".section")) {  // its '{' on this line or the next
            if (m_inBody)
                fail(
                    "a .section directive inside a function (an asm statement's?): sections stand between "
                    "functions; remove it");
            std::string name = line.substr(8);
            name = name.substr(0, name.find_first_of(" \t{", name.find_first_not_of(" \t")));
            name.erase(0, name.find_first_not_of(" \t"));
            if (line.find('}') == std::string::npos) m_section = &m_module.debugSections[name];
            return;
        }
        if (directive(line, ".file")) return fileDirective(line);
        if (directive(line, ".loc")) return locDirective(line);
        if (line[0] == '.' && (line.find(".entry") != std::string::npos || line.find(".func") != std::string::npos))
            return header(line);
        if (line == "{" && m_inBody) {  // a nested scope, such as a call sequence
            ++m_depth;
            m_braceLines.push_back(m_line);
            return;
        }
        if (line == "}" && m_inAsm && m_depth == m_asmDepth)
            fail("this '}' closes no '{' of its asm statement: the braces of an asm statement must balance");
        if (line == "}" && m_depth > 0) {
            --m_depth;
            m_braceLines.pop_back();
            while (!m_registers.empty() && m_registers.back().second > m_depth) m_registers.pop_back();
            return;
        }
        if (line == "{") {
            if (!m_fn) fail("'{' outside a function");
            m_inBody = true;
            return;
        }
        if (line == "}") {
            if (!m_fn) fail("'}' outside a function");
            m_module.functions.push_back(std::move(*m_fn));
            m_fn.reset();
            m_inBody = false;
            m_labelLines.clear();
            m_registers.clear();
            m_closedAt = m_line;
            m_cudaLoc = {};
            return;
        }
        if (line.back() == ':' && line.find_first_of(" \t") == std::string::npos) return label(line);
        if (startsWith(line, ".reg")) return registers(line);
        if (startsWith(line, ".pragma") || startsWith(line, ".maxntid") || startsWith(line, ".reqntid") ||
            startsWith(line, ".minnctapersm"))
            return;
        if (startsWith(line, ".shared") || startsWith(line, ".global") || startsWith(line, ".const") ||
            startsWith(line, ".extern") || startsWith(line, ".local") || startsWith(line, ".visible .global") ||
            startsWith(line, ".visible .const"))
            return variable(line);
        if (line[0] == '.') return;  // other directives carry nothing the machine needs
        if (!m_fn || !m_inBody)
            fail("instruction outside a function body: '" + line + "'" +
                 (m_closedAt ? "; the '}' at PTX line " + std::to_string(m_closedAt) + " closed the function before it"
                             : ""));
        instruction(line);
    }

    // `name:` -- once in a function.
    void label(const std::string& line) {
        if (!m_fn) fail("label outside a function");
        std::string name = line.substr(0, line.size() - 1);
        if (!isIdentifier(name)) fail("cannot read the label '" + name + "'");
        auto [first, added] = m_labelLines.emplace(name, m_line);
        if (!added)
            fail("the label '" + name + "' is defined twice in the function, first at PTX line " +
                 std::to_string(first->second) +
                 (m_inAsm ? "; labels in an asm statement that is inlined or unrolled need a unique suffix: write L%="
                          : ""));
        m_fn->labels[name] = m_fn->body.size();
    }

    // .file entries come last in Clang's output, so lines are attributed once everything is read.
    void attributeLinesToMainFile() {
        for (const auto& [n, name] : m_module.files)
            if (name.size() > 3 && name.substr(name.size() - 3) == ".cu") {
                m_module.mainFile = n;
                break;
            }
        for (Function& f : m_module.functions) attributeLines(f);
    }

    // Code with no line of the main file (the device header's inlined functions, line 0) takes the line
    // before it; at the start of a basic block, where the line before belongs to another block (a loop's
    // first value, say), the line after it, which uses what the code computed.
    void attributeLines(Function& f) const {
        std::vector<bool> blockStart(f.body.size() + 1, false);  // at a branch's target
        for (const Instruction& in : f.body)
            if (in.parts[0] == "bra" && !in.operands.empty() && f.labels.count(in.operands[0].name))
                blockStart[std::min(f.labels.at(in.operands[0].name), f.body.size())] = true;
        auto own = [&](const Instruction& in) { return in.locFile == m_module.mainFile && in.cudaLoc.line > 0; };
        SourceLoc last;
        for (size_t i = 0; i < f.body.size(); ++i) {
            if (blockStart[i]) {
                size_t next = i;
                while (next < f.body.size() && !own(f.body[next]) && (next == i || !blockStart[next])) ++next;
                if (next < f.body.size() && own(f.body[next])) last = f.body[next].cudaLoc;
            }
            if (own(f.body[i]))
                last = f.body[i].cudaLoc;
            else
                f.body[i].cudaLoc = last;
        }
    }

    void fileDirective(const std::string& line) {
        std::istringstream ss(line.substr(5));
        int n = 0;
        ss >> n;
        size_t q1 = line.find('"'), q2 = line.find('"', q1 + 1);
        if (q1 == std::string::npos || q2 == std::string::npos) fail("malformed .file directive");
        m_module.files[n] = line.substr(q1 + 1, q2 - q1 - 1);
    }

    void locDirective(const std::string& line) {
        std::istringstream ss(line.substr(4));
        int file = 0, l = 0, c = 0;
        ss >> file >> l >> c;
        m_loc = {l, c};
        m_locFile = file;
        if (m_cudaFileNumber >= 0 && file == m_cudaFileNumber && l > 0) m_cudaLoc = m_loc;
    }

    void header(const std::string& line) {
        if (m_fn) fail("a function starts inside '" + m_fn->name + "'");
        m_fn = Function{};
        m_fn->isEntry = line.find(".entry") != std::string::npos;
        m_fn->ptxLine = m_line;
        m_closedAt = 0;
        m_cudaLoc = {};
        // `.func (.param .b32 func_retval0) name(`: the parameter list opens at the last '(' of the line
        std::string l = line;
        if (!l.empty() && l.back() == ';') l.pop_back();  // a prototype
        size_t open = l.back() == '(' || l.back() == ')' ? l.rfind('(') : l.find('(');
        std::string head = trim(l.substr(0, open));
        m_fn->name = head.substr(head.find_last_of(" \t)") + 1);
        if (l.back() != '(' && l.back() != ')') {  // `.weak .func (.param ...) name`, its parameters on the next lines
            m_fn->name = l.substr(l.find_last_of(" \t)") + 1);
            m_awaitParams = true;
            return;
        }
        if (open != std::string::npos && l.back() == '(')
            m_inParams = true;
        else if (open != std::string::npos)
            paramList(l.substr(open + 1, l.rfind(')') - open - 1));
        if (line.back() == ';') {  // declarations carry no body, and their parameter list ends with them
            m_fn.reset();
            m_inParams = false;
        }
    }

    void param(const std::string& line) {
        std::string l = line;
        bool close = l.find(')') != std::string::npos;
        if (close) l = l.substr(0, l.find(')'));
        paramList(l);
        if (close) m_inParams = false;
    }

    void paramList(const std::string& text) {
        if (!m_fn) fail("a parameter declaration outside a function");
        for (const std::string& p : split(text, ',')) {
            if (p.empty()) continue;
            std::istringstream ss(p);
            std::string kw, word, type, name;
            int64_t arrayBytes = 0;
            ss >> kw;
            // [.align N] .type [.ptr modifiers] name, or name[N] for a struct or vector passed by value
            while (ss >> word) {
                if (word == ".align") {
                    ss >> word;
                } else if (word[0] == '.' && type.empty()) {
                    type = word.substr(1);
                } else if (word[0] != '.') {
                    size_t open = word.find('[');
                    name = word.substr(0, open);
                    if (open != std::string::npos) arrayBytes = std::strtoll(word.c_str() + open + 1, nullptr, 10);
                }
            }
            if (kw != ".param" || name.empty() || type.empty()) fail("unexpected parameter declaration '" + p + "'");
            m_fn->params.push_back({name, type, arrayBytes});
        }
    }

    void variable(const std::string& line) {
        std::string l = trim(line.substr(0, line.find(';')));
        l = trim(l.substr(0, l.find('=')));  // the declaration, without an initializer
        std::istringstream ss(l);
        std::string word, last;
        while (ss >> word) last = word;
        size_t br = last.find('[');
        std::string name = last.substr(0, br);
        int elemBytes = l.find(".b64") != std::string::npos || l.find(".u64") != std::string::npos   ? 8
                        : l.find(".b32") != std::string::npos || l.find(".u32") != std::string::npos ? 4
                        : l.find(".b16") != std::string::npos || l.find(".u16") != std::string::npos ? 2
                                                                                                     : 1;
        auto bytes = [&](const char* what) {
            int64_t count = br == std::string::npos ? 1 : number(last.substr(br + 1, last.find(']') - br - 1));
            if (count < 0 || count > (int64_t(1) << 40))
                fail(std::string("the size of ") + what + " " + name + " is out of range");
            return elemBytes * count;
        };
        if (startsWith(l, ".extern .shared")) {
            m_module.shared.push_back({name, 0, true});
        } else if (startsWith(l, ".shared")) {
            m_module.shared.push_back({name, bytes("shared array"), false});
        } else if (startsWith(l, ".local")) {
            m_module.locals.push_back({name, bytes("local array"), false});
        } else {
            globalVariable(l, name, br == std::string::npos ? "" : last.substr(br + 1, last.find(']') - br - 1),
                           trim(line.substr(0, line.find(';'))));
        }
    }

    // `.global .align 4 .b8 name[N] = {1, 0, ...}` (or .u32, .f32 with 0f... values; no initializer: zeros).
    void globalVariable(const std::string& declaration, const std::string& name, const std::string& count,
                        const std::string& line) {
        GlobalVariable g;
        g.name = name;
        for (const auto& [type, bytes] :
             std::vector<std::pair<std::string, int>>{{"8", 1}, {"16", 2}, {"32", 4}, {"64", 8}})
            for (const char* kind : {".b", ".u", ".s", ".f"})
                if (declaration.find(kind + type + " ") != std::string::npos) g.elementBytes = bytes;
        if (size_t at = declaration.find(".align "); at != std::string::npos)
            g.alignment = int(std::strtol(declaration.c_str() + at + 7, nullptr, 10));
        int64_t elements = count.empty() ? 1 : number(count);
        if (elements < 0 || elements * g.elementBytes > (int64_t(1) << 24))
            fail("the size of global variable " + name + " is out of range");
        g.bytes.assign(size_t(elements * g.elementBytes), 0);
        size_t equals = line.find('=');
        std::string items = equals == std::string::npos ? "" : line.substr(equals + 1);
        items.erase(std::remove_if(items.begin(), items.end(), [](char c) { return c == '{' || c == '}'; }),
                    items.end());
        std::istringstream list(items);
        size_t at = 0;
        for (std::string item; std::getline(list, item, ','); at += size_t(g.elementBytes)) {
            item = trim(item);
            std::optional<uint64_t> value = initialValue(item);
            if (!value) {
                g.unsupported = "its initializer holds an address (" + item + ")";
                break;
            }
            for (int b = 0; b < g.elementBytes && at + size_t(b) < g.bytes.size(); ++b)
                g.bytes[at + size_t(b)] = uint8_t(*value >> (8 * b));
        }
        if (declaration.find(".f64 ") != std::string::npos && g.unsupported.empty())
            g.unsupported = "it is a double, and the machine computes in 32-bit float";
        m_module.globals.push_back(std::move(g));
    }

    // An initializer's element: an integer, or a float's bits as 0fXXXXXXXX; nullopt for anything else.
    static std::optional<uint64_t> initialValue(const std::string& item) {
        std::string digits =
            item.size() > 2 && (item.rfind("0f", 0) == 0 || item.rfind("0F", 0) == 0) ? "0x" + item.substr(2) : item;
        try {
            size_t used = 0;
            uint64_t v = digits[0] == '-' ? uint64_t(std::stoll(digits, &used, 0)) : std::stoull(digits, &used, 0);
            if (used == digits.size()) return v;
        } catch (const std::exception&) {
        }
        return std::nullopt;
    }

    int64_t number(const std::string& text) {
        try {
            size_t used = 0;
            int64_t v = std::stoll(text, &used, 0);
            if (used == text.size()) return v;
        } catch (const std::exception&) {
        }
        fail("cannot read the number '" + text + "'");
    }

    bool isNumber(const std::string& t) const {
        if (t.empty() || !(std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-')) return false;
        try {
            size_t used = 0;
            std::stoll(t, &used, 0);
            return used == t.size();
        } catch (const std::exception&) {
            return false;
        }
    }

    // Whether `name` is one of the registers `declared` names: itself, or for a range "%r<" (from %r<16>),
    // "%r" followed by digits.
    static bool declares(const std::string& declared, const std::string& name) {
        if (declared.back() != '<') return name == declared;
        size_t n = declared.size() - 1;
        return name.size() > n && name.compare(0, n, declared, 0, n) == 0 &&
               name.find_first_not_of("0123456789", n) == std::string::npos;
    }

    // A register a scope declares without '%' (`.reg .pred p;` in inline asm, `.reg .b32 tmp;` in Clang's
    // `{ .reg .b32 tmp; mov.b64 {tmp, %r1}, %rd1; }`) as the register %__NAME, which no compiler's own
    // register names; any other name as it is.
    std::string scopedRegister(const std::string& name) const {
        return name[0] != '%' && isDeclaredRegister(name) ? "%__" + name : name;
    }

    // A name declared by `.reg` in the open scopes without '%' (inline asm declares `.reg .pred p;`).
    bool isDeclaredRegister(const std::string& name) const {
        for (const auto& [declared, depth] : m_registers)
            if (declares(declared, name)) return true;
        return false;
    }

    Operand operand(const std::string& t) {
        Operand o;
        if (t.empty()) fail("empty operand");
        if (size_t gap = spaceInOperand(t); gap != std::string::npos)
            fail("expected ',' or ';' between '" + t.substr(0, gap) + "' and '" + trim(t.substr(gap)) + "'");
        if (t[0] == '[') {
            if (t.back() != ']') fail("the address '" + t + "' is not closed with ']'");
            o.kind = Operand::Kind::Address;
            std::string inner = trim(t.substr(1, t.size() - 2));
            size_t plus = inner.find('+');
            o.name = trim(inner.substr(0, plus));
            if (plus != std::string::npos) o.value = number(trim(inner.substr(plus + 1)));
            if (!o.name.empty() && (std::isdigit(static_cast<unsigned char>(o.name[0])) || o.name[0] == '-')) {
                o.value += number(o.name);
                o.name.clear();
            }
            if (!o.name.empty() && !isIdentifier(o.name)) fail("cannot read the address '" + t + "'");
            return o;
        }
        if (t[0] == '{') {
            if (t.back() != '}') fail("the vector '" + t + "' is not closed with '}'");
            std::string elements;  // a register a scope declares without '%' gets one, as elsewhere
            for (const std::string& e : split(t.substr(1, t.size() - 2) + ",", ',')) {
                if (e != "_" && !isIdentifier(e) && !isNumber(e)) fail("cannot read the vector '" + t + "'");
                elements += (elements.empty() ? "" : ", ") + scopedRegister(e);
            }
            o.kind = Operand::Kind::Vector;
            o.name = "{" + elements + "}";
            return o;
        }
        if (t[0] == '%') {
            static const char* specials[] = {"%tid",     "%ntid",  "%ctaid", "%nctaid",   "%laneid",     "%warpid",
                                             "%nwarpid", "%clock", "%smid",  "%lanemask", "%globaltimer"};
            o.kind = Operand::Kind::Reg;
            for (const char* s : specials)
                if (startsWith(t, s)) o.kind = Operand::Kind::Special;
            if (o.kind == Operand::Kind::Reg && !isIdentifier(t))
                fail(t.find('|') != std::string::npos ? "a second, predicate destination ('" + t + "') is not supported"
                                                      : "cannot read the register '" + t + "'");
            o.name = t;
            return o;
        }
        if (std::isdigit(static_cast<unsigned char>(t[0])) || t[0] == '-') {
            o.kind = Operand::Kind::Imm;
            if (startsWith(t, "0f") || startsWith(t, "0F") || startsWith(t, "0d") || startsWith(t, "0D")) {
                o.isFloat = true;  // the literal's bits in hexadecimal; the text is kept to tell 0f from 0d
                o.name = t;
                char* end = nullptr;
                o.value = int64_t(std::strtoull(t.c_str() + 2, &end, 16));
                if (t.size() < 3 || *end) fail("cannot read the float literal '" + t + "'");
                return o;
            }
            try {
                size_t used = 0;
                o.value = std::stoll(t, &used, 0);
                if (used != t.size() && !(used + 1 == t.size() && (t.back() == 'U' || t.back() == 'u'))) throw 0;
            } catch (...) {
                fail("cannot read the number '" + t + "'");
            }
            return o;
        }
        o.kind = t[0] == '$'             ? Operand::Kind::Label
                 : isDeclaredRegister(t) ? Operand::Kind::Reg
                                         : Operand::Kind::Symbol;
        o.name = scopedRegister(t);
        return o;
    }

    // `.reg .f32 %f<12>;` or `.reg .pred p, q;`: the function's float registers, and every name declared in
    // the open scopes (each once: a register is known by its name alone).
    void registers(const std::string& line) {
        std::istringstream words(line.substr(4));
        std::string type, names;
        words >> type;
        if (!m_fn) return;
        std::getline(words, names);
        std::istringstream list(names);
        for (std::string name; std::getline(list, name, ',');) {
            name.erase(0, name.find_first_not_of(" \t"));
            name = name.substr(0, name.find_first_of(" \t;"));
            if (size_t open = name.find('<'); open != std::string::npos) name = name.substr(0, open + 1);
            if (name.empty()) continue;
            // Registers are kept by name: one declared again in an inner scope would be the outer one.
            for (const auto& [declared, depth] : m_registers)
                if (declared == name || declares(declared, name) || declares(name, declared))
                    fail("the register '" + (name.back() == '<' ? name + "N>" : name) +
                         "' is declared twice in the function (an inner scope's would be the outer one): give it a "
                         "name of its own");
            if (type == ".f32") m_fn->floatRegisters.push_back(name);
            m_registers.push_back({name, m_depth});
        }
    }

    // An instruction may span lines (Clang writes call sequences that way); it ends at ';'.
    void instruction(const std::string& text) {
        if (!m_pending.empty() && startsStatement(text)) failPending();
        if (m_pending.empty()) m_pendingLine = m_line;
        m_pending += (m_pending.empty() ? "" : " ") + text;
        if (text.back() != ';') return;
        std::string line = std::move(m_pending);
        m_pending.clear();
        std::string l = trim(line.substr(0, line.size() - 1));
        Instruction in;
        in.ptxLine = m_pendingLine;
        in.cudaLoc = m_loc;
        in.locFile = m_locFile;
        if (l.empty()) fail("an empty instruction");
        if (l[0] == '@') {
            size_t sp = l.find_first_of(" \t");
            if (sp == std::string::npos || sp < 2) fail("a guard with no instruction after it: '" + l + "'");
            std::string g = l.substr(1, sp - 1);
            in.guardNegated = g[0] == '!';
            in.guard = in.guardNegated ? g.substr(1) : g;
            if (!isIdentifier(in.guard)) fail("cannot read the guard '@" + g + "': it names a predicate, such as @%p1");
            in.guard = scopedRegister(in.guard);
            l = trim(l.substr(sp));
        }
        size_t sp = l.find_first_of(" \t");
        in.opcode = l.substr(0, sp);
        if (!isOpcode(in.opcode)) fail("cannot read the instruction '" + in.opcode + "'");
        in.parts = split(in.opcode, '.');
        if (sp != std::string::npos) {
            std::string list = trim(l.substr(sp));
            if (list.back() == ',') fail("an operand is missing after the last ',' of '" + l + "'");
            for (const std::string& op : split(list, ',')) in.operands.push_back(operand(op));
        }
        if (in.parts[0] == "bra")  // a branch's target is a label, whatever its name
            for (Operand& o : in.operands)
                if (o.kind == Operand::Kind::Symbol) o.kind = Operand::Kind::Label;
        m_fn->body.push_back(std::move(in));
    }

    std::string m_file;
    std::string m_cudaFile;     // the .cu file the PTX was compiled from, or empty
    int m_cudaFileNumber = -1;  // its .file number
    SourceLoc m_cudaLoc;        // the last line of it in the current function
    Module m_module;
    std::optional<Function> m_fn;
    bool m_inParams = false, m_inBody = false, m_awaitParams = false;
    std::vector<std::string>* m_section = nullptr;  // the debug section being read, or null
    int m_depth = 0;
    std::vector<int> m_braceLines;                         // the line of each open nested '{'
    std::vector<std::pair<std::string, int>> m_registers;  // the names .reg declares, and their depth
    std::map<std::string, int> m_labelLines;               // the function's labels, and where each stands
    bool m_inAsm = false;                                  // between `// begin inline asm` and its end
    int m_asmDepth = 0;                                    // m_depth where the asm statement began
    bool m_inComment = false;                              // inside `/* */`
    int m_commentLine = 0;
    int m_closedAt = 0;     // the line of the '}' that closed the last function
    std::string m_pending;  // an instruction not yet ended by ';'
    int m_pendingLine = 0;
    int m_line = 0, m_locFile = 0;
    SourceLoc m_loc;
};

}  // namespace

Module parse(const std::string& text, const std::string& fileName) { return Parser(fileName, "").run(text); }

Module parse(const std::string& text, const std::string& fileName, const std::string& cudaFile) {
    return Parser(fileName, cudaFile).run(text);
}

std::vector<Operand> vectorElements(const Operand& v) {
    if (v.kind != Operand::Kind::Vector) return {v};
    std::vector<Operand> out;
    std::string cur;
    for (char c : v.name.substr(1)) {
        if (c != ',' && c != '}') {
            if (!std::isspace(static_cast<unsigned char>(c))) cur += c;
            continue;
        }
        Operand e{Operand::Kind::Symbol, cur, 0, false};
        if (!cur.empty() && cur[0] == '%') {
            e.kind = Operand::Kind::Reg;
        } else if (!cur.empty() && (std::isdigit(static_cast<unsigned char>(cur[0])) || cur[0] == '-')) {
            e = {Operand::Kind::Imm, "", std::strtoll(cur.c_str(), nullptr, 0), false};
        }
        out.push_back(e);
        cur.clear();
    }
    return out;
}

}  // namespace qgpu::ptx
