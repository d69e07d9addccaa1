#include <cctype>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "qgpu/compiler/Ptx.h"

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

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool startsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

// `name` as a whole word at the start (so ".loc" does not match ".local").
bool directive(const std::string& s, const std::string& name) {
    return startsWith(s, name) && (s.size() == name.size() || std::isspace(static_cast<unsigned char>(s[name.size()])));
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (char c : s) {
        if (c == '[' || c == '{') depth++;
        if (c == ']' || c == '}') depth--;
        if (c == sep && depth == 0) {
            out.push_back(trim(cur));
            cur.clear();
        } else {
            cur += c;
        }
    }
    if (!trim(cur).empty()) out.push_back(trim(cur));
    return out;
}

class Parser {
public:
    Parser(const std::string& file) : m_file(file) {}

    Module run(const std::string& text) {
        std::istringstream in(text);
        std::string raw;
        while (std::getline(in, raw)) {
            ++m_line;
            size_t comment = raw.find("//");
            if (comment != std::string::npos) raw.resize(comment);
            std::string line = trim(raw);
            if (!line.empty()) statement(line);
        }
        if (m_fn) fail("the function '" + m_fn->name + "' is not closed with '}'");
        attributeLinesToMainFile();
        return std::move(m_module);
    }

private:
    [[noreturn]] void fail(const std::string& msg) {
        throw DiagnosticError(Diagnostic{m_file, m_line, 0, "PTX: " + msg});
    }

    [[noreturn]] void failPending() {
        m_line = m_pendingLine;
        fail("expected ';' at the end of '" + m_pending + "'");
    }

    void statement(const std::string& line) {
        if (m_skipSection) {
            if (line.find('}') != std::string::npos) m_skipSection = false;
            return;
        }
        if (m_inParams) return param(line);
        if (startsWith(line, ".version") || startsWith(line, ".target") || startsWith(line, ".address_size")) return;
        if (startsWith(line, ".section")) {
            m_skipSection = line.find('{') != std::string::npos && line.find('}') == std::string::npos;
            return;
        }
        if (directive(line, ".file")) return fileDirective(line);
        if (directive(line, ".loc")) return locDirective(line);
        if (line.find(".entry") != std::string::npos || line.find(".func") != std::string::npos) return header(line);
        if (!m_pending.empty() && (line == "}" || line == "{" || line.back() == ':')) failPending();
        if (line == "{" && m_inBody) {  // a nested scope, such as a call sequence
            ++m_depth;
            return;
        }
        if (line == "}" && m_depth > 0) {
            --m_depth;
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
            return;
        }
        if (line.back() == ':' && line.find(' ') == std::string::npos) {
            if (!m_fn) fail("label outside a function");
            m_fn->labels[line.substr(0, line.size() - 1)] = m_fn->body.size();
            return;
        }
        if (startsWith(line, ".reg")) return registers(line);
        if (startsWith(line, ".pragma") || startsWith(line, ".maxntid") || startsWith(line, ".reqntid") ||
            startsWith(line, ".minnctapersm"))
            return;
        if (startsWith(line, ".shared") || startsWith(line, ".global") || startsWith(line, ".const") ||
            startsWith(line, ".extern") || startsWith(line, ".local") || startsWith(line, ".visible .global"))
            return variable(line);
        if (line[0] == '.') return;  // other directives carry nothing the machine needs
        if (!m_fn || !m_inBody) fail("instruction outside a function body: '" + line + "'");
        instruction(line);
    }

    // .file entries come last in Clang's output, so lines are attributed once everything is read.
    void attributeLinesToMainFile() {
        for (const auto& [n, name] : m_module.files)
            if (name.size() > 3 && name.substr(name.size() - 3) == ".cu") {
                m_module.mainFile = n;
                break;
            }
        for (Function& f : m_module.functions) {
            SourceLoc last;
            for (Instruction& in : f.body) {
                if (in.locFile == m_module.mainFile && in.cudaLoc.line > 0)  // line 0: code with no single line
                    last = in.cudaLoc;
                else
                    in.cudaLoc = last;
            }
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
    }

    void header(const std::string& line) {
        if (m_fn) fail("a function starts inside '" + m_fn->name + "'");
        m_fn = Function{};
        m_fn->isEntry = line.find(".entry") != std::string::npos;
        m_fn->ptxLine = m_line;
        // `.func (.param .b32 func_retval0) name(`: the parameter list opens at the last '(' of the line
        std::string l = line;
        if (!l.empty() && l.back() == ';') l.pop_back();  // a prototype
        size_t open = l.back() == '(' || l.back() == ')' ? l.rfind('(') : l.find('(');
        std::string head = trim(l.substr(0, open));
        m_fn->name = head.substr(head.find_last_of(" \t)") + 1);
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
            std::string kw, type, name;
            ss >> kw >> type >> name;
            if (kw != ".param" || name.empty()) fail("unexpected parameter declaration '" + p + "'");
            while (name[0] == '.')  // .align N, .ptr modifiers; a list that ends in one has no name
                if (!(ss >> name)) fail("unexpected parameter declaration '" + p + "'");
            m_fn->params.push_back({name, type.substr(1)});
        }
    }

    void variable(const std::string& line) {
        std::string l = trim(line.substr(0, line.find(';')));
        std::istringstream ss(l);
        std::string word, last;
        while (ss >> word) last = word;
        size_t br = last.find('[');
        std::string name = last.substr(0, br);
        if (startsWith(l, ".shared")) {
            int elemBytes = l.find(".b64") != std::string::npos || l.find(".u64") != std::string::npos   ? 8
                            : l.find(".b32") != std::string::npos || l.find(".u32") != std::string::npos ? 4
                            : l.find(".b16") != std::string::npos || l.find(".u16") != std::string::npos ? 2
                                                                                                         : 1;
            int64_t count = br == std::string::npos ? 1 : number(last.substr(br + 1, last.find(']') - br - 1));
            if (count < 0 || count > (int64_t(1) << 40)) fail("the size of shared array " + name + " is out of range");
            m_module.shared.push_back({name, elemBytes * count});
        } else if (startsWith(l, ".local")) {
            m_module.locals.push_back(name);
        } else {
            m_module.globals.push_back(name);
        }
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

    Operand operand(const std::string& t) {
        Operand o;
        if (t.empty()) fail("empty operand");
        if (t[0] == '[') {
            o.kind = Operand::Kind::Address;
            std::string inner = trim(t.substr(1, t.size() - 2));
            size_t plus = inner.find('+');
            o.name = trim(inner.substr(0, plus));
            if (plus != std::string::npos) o.value = number(trim(inner.substr(plus + 1)));
            if (!o.name.empty() && (std::isdigit(static_cast<unsigned char>(o.name[0])) || o.name[0] == '-')) {
                o.value += number(o.name);
                o.name.clear();
            }
            return o;
        }
        if (t[0] == '{') {
            o.kind = Operand::Kind::Vector;
            o.name = t;
            return o;
        }
        if (t[0] == '%') {
            static const char* specials[] = {"%tid",    "%ntid",    "%ctaid", "%nctaid", "%laneid",
                                             "%warpid", "%nwarpid", "%clock", "%smid",   "%lanemask"};
            o.kind = Operand::Kind::Reg;
            for (const char* s : specials)
                if (startsWith(t, s)) o.kind = Operand::Kind::Special;
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
        o.kind = t[0] == '$' ? Operand::Kind::Label : Operand::Kind::Symbol;
        o.name = t;
        return o;
    }

    // `.reg .f32 %f<12>;` or `.reg .f32 %x, %y;`: the function's float registers (other types need no record).
    void registers(const std::string& line) {
        std::istringstream words(line.substr(4));
        std::string type, names;
        words >> type;
        if (type != ".f32" || !m_fn) return;
        std::getline(words, names);
        std::istringstream list(names);
        for (std::string name; std::getline(list, name, ',');) {
            name.erase(0, name.find_first_not_of(" \t"));
            name = name.substr(0, name.find_first_of(" \t;"));
            if (size_t open = name.find('<'); open != std::string::npos) name = name.substr(0, open + 1);
            if (!name.empty()) m_fn->floatRegisters.push_back(name);
        }
    }

    // An instruction may span lines (Clang writes call sequences that way); it ends at ';'.
    void instruction(const std::string& text) {
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
            l = trim(l.substr(sp));
        }
        size_t sp = l.find_first_of(" \t");
        in.opcode = l.substr(0, sp);
        in.parts = split(in.opcode, '.');
        if (sp != std::string::npos)
            for (const std::string& op : split(l.substr(sp), ',')) in.operands.push_back(operand(op));
        m_fn->body.push_back(std::move(in));
    }

    std::string m_file;
    Module m_module;
    std::optional<Function> m_fn;
    bool m_inParams = false, m_inBody = false, m_skipSection = false;
    int m_depth = 0;
    std::string m_pending;  // an instruction not yet ended by ';'
    int m_pendingLine = 0;
    int m_line = 0, m_locFile = 0;
    SourceLoc m_loc;
};

}  // namespace

Module parse(const std::string& text, const std::string& fileName) { return Parser(fileName).run(text); }

}  // namespace qgpu::ptx
