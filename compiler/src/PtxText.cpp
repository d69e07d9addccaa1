#include "PtxText.h"

#include <cctype>
#include <set>

namespace qgpu::ptx {

std::string trim(const std::string& s) {
    size_t b = s.find_first_not_of(" \t\r");
    if (b == std::string::npos) return "";
    return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

bool startsWith(const std::string& s, const std::string& p) { return s.rfind(p, 0) == 0; }

bool directive(const std::string& s, const std::string& name) {
    return startsWith(s, name) && (s.size() == name.size() || std::isspace(static_cast<unsigned char>(s[name.size()])));
}

bool isOpen(char c) { return c == '[' || c == '(' || c == '{'; }
bool isClose(char c) { return c == ']' || c == ')' || c == '}'; }

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (char c : s) {
        if (isOpen(c)) depth++;
        if (isClose(c)) depth--;
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

bool isNameChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$'; }

bool isIdentifier(const std::string& s) {
    if (s.empty()) return false;
    bool letter = std::isalpha(static_cast<unsigned char>(s[0])) != 0;
    if (!letter && (s.size() < 2 || (s[0] != '_' && s[0] != '$' && s[0] != '%'))) return false;
    for (size_t i = 1; i < s.size(); ++i)
        if (!isNameChar(s[i])) return false;
    return true;
}

bool isOpcode(const std::string& s) {
    if (s.empty() || !std::islower(static_cast<unsigned char>(s[0])) || s.back() == '.') return false;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '.' ? s[i - 1] == '.'
                     : !(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))  // .NaN has capitals
            return false;
    }
    return true;
}

// After a statement left without ';', a line that starts with one of these begins a new statement.
bool isInstructionName(const std::string& name) {
    static const std::set<std::string> names = {
        "abs",      "activemask",   "add",       "addc",     "alloca",   "and",       "applypriority",
        "atom",     "bar",          "barrier",   "bfe",      "bfi",      "bfind",     "bmsk",
        "bra",      "brev",         "brkpt",     "brx",      "call",     "clz",       "cnot",
        "copysign", "cos",          "cp",        "cvt",      "cvta",     "discard",   "div",
        "dp2a",     "dp4a",         "elect",     "ex2",      "exit",     "fence",     "fma",
        "fns",      "isspacep",     "istypep",   "ld",       "ldmatrix", "ldu",       "lg2",
        "lop3",     "mad",          "mad24",     "madc",     "mapa",     "match",     "max",
        "mbarrier", "membar",       "min",       "mma",      "mov",      "movmatrix", "mul",
        "mul24",    "multimem",     "nanosleep", "neg",      "not",      "or",        "pmevent",
        "popc",     "prefetch",     "prefetchu", "prmt",     "rcp",      "red",       "redux",
        "rem",      "ret",          "rsqrt",     "sad",      "selp",     "set",       "setp",
        "shf",      "shfl",         "shl",       "shr",      "sin",      "slct",      "sqrt",
        "st",       "stackrestore", "stacksave", "stmatrix", "sub",      "subc",      "suld",
        "suq",      "sured",        "sust",      "szext",    "tanh",     "testp",     "tex",
        "tld4",     "trap",         "txq",       "vabsdiff", "vadd",     "vavrg2",    "vavrg4",
        "vmad",     "vmax",         "vmin",      "vote",     "vset",     "vshl",      "vshr",
        "vsub",     "wgmma",        "wmma",      "xor"};
    return names.count(name) > 0;
}

size_t spaceInOperand(const std::string& t) {
    int depth = 0;
    for (size_t i = 0; i < t.size(); ++i) {
        if (isOpen(t[i])) depth++;
        if (isClose(t[i]) && depth > 0) depth--;
        if (depth == 0 && (t[i] == ' ' || t[i] == '\t')) return i;
    }
    return std::string::npos;
}

}  // namespace qgpu::ptx
