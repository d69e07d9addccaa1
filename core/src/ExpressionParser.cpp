// The expression language's parser and shape checker (grammar: docs/expressions.md).
#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>
#include <charconv>
#include <cstdint>
#include <string>
#include <vector>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Expression.h"

namespace qgpu::expr {

namespace {

constexpr const char* kFile = "<expression>";
// Bounds that keep a hostile expression (Qwen writes them in chat) from exhausting the stack or running
// launches for hours; docs/expressions.md gives them.
constexpr size_t kMaxCharacters = 100000;
constexpr int kMaxNesting = 64;      // parentheses, function calls and unary minus signs inside each other
constexpr int kMaxOperations = 100;  // launches one expression runs

[[noreturn]] void fail(int column, const std::string& message) {
    throw DiagnosticError(Diagnostic{kFile, 1, column, message});
}

// Long sources shortened for messages: their start and end.
std::string abbreviate(const std::string& s) {
    constexpr size_t kKeep = 24;
    if (s.size() <= 2 * kKeep + 5) return s;
    auto trim = [](std::string t) {
        t.erase(0, t.find_first_not_of(' '));
        t.erase(t.find_last_not_of(' ') + 1);
        return t;
    };
    return trim(s.substr(0, kKeep)) + " ... " + trim(s.substr(s.size() - kKeep));
}

struct Token {
    enum Kind { Number, Name, Punct, End } kind = End;
    std::string text;
    int column = 1;
    bool isFloat = false;  // a number with a '.' or an exponent
};

bool isDigit(const std::string& s, size_t i) { return i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); }

// 12, 1.5, .5, 2., 1e-3, 6.02E23: digits with an optional fraction and exponent; `i` moves past it.
Token number(const std::string& s, size_t& i) {
    Token t{Token::Number, "", int(i) + 1};
    size_t j = i;
    auto digits = [&] {
        while (isDigit(s, j)) ++j;
    };
    digits();
    if (j < s.size() && s[j] == '.') {
        t.isFloat = true;
        ++j;
        digits();
    }
    if (j < s.size() && (s[j] == 'e' || s[j] == 'E')) {
        size_t k = j + 1;
        if (k < s.size() && (s[k] == '+' || s[k] == '-')) ++k;
        if (!isDigit(s, k))
            fail(int(j) + 1,
                 "expected the exponent's digits after '" + abbreviate(s.substr(i, k - i)) + "', e.g. 1e-3");
        t.isFloat = true;
        j = k;
        digits();
    }
    t.text = s.substr(i, j - i);
    i = j;
    return t;
}

std::vector<Token> lex(const std::string& s) {
    if (s.size() > kMaxCharacters)
        fail(1, "the expression has " + std::to_string(s.size()) + " characters, more than the limit of " +
                    std::to_string(kMaxCharacters) + ": compute in smaller steps");
    std::vector<Token> out;
    size_t i = 0;
    while (i < s.size()) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        int column = int(i) + 1;
        if (std::isspace(c)) {
            ++i;
        } else if (std::isdigit(c) || (c == '.' && isDigit(s, i + 1))) {
            out.push_back(number(s, i));
        } else if (std::isalpha(c) || c == '_') {
            size_t j = i;
            while (j < s.size() && (std::isalnum(static_cast<unsigned char>(s[j])) || s[j] == '_')) ++j;
            out.push_back({Token::Name, s.substr(i, j - i), column});
            i = j;
        } else if (std::string("[](),+-*@.").find(char(c)) != std::string::npos) {
            out.push_back({Token::Punct, std::string(1, char(c)), column});
            ++i;
        } else {
            fail(column, std::string("unexpected character '") + char(c) +
                             "': write numbers, [ ] arrays, + - * @, ( ) and dot sum max transpose");
        }
    }
    out.push_back({Token::End, "", int(s.size()) + 1});
    return out;
}

std::string describe(const Token& t) { return t.kind == Token::End ? "the end of the expression" : "'" + t.text + "'"; }

std::unique_ptr<Node> makeNode(Op op, int column) {
    auto n = std::make_unique<Node>();
    n->op = op;
    n->column = column;
    return n;
}

int words(const std::vector<int>& shape) {
    int n = 1;
    for (int d : shape) n *= d;
    return n;
}

const char* opName(Op op) {
    switch (op) {
        case Op::Add: return "'+'";
        case Op::Sub: return "'-'";
        case Op::Mul: return "'*'";
        case Op::MatMul: return "'@'";
        case Op::Dot: return "dot";
        case Op::Sum: return "sum";
        case Op::Max: return "max";
        case Op::Transpose: return "transpose";
        default: return "the operation";
    }
}

// The result shape of `n` from its operands' shapes; throws a shape error at the operator.
std::vector<int> checkShape(const Node& n) {
    auto shapeOf = [&](size_t i) { return n.operands[i]->shape; };
    auto mismatch = [&](const std::string& why) {
        fail(n.column, std::string("shape mismatch: ") + opName(n.op) + " " + why + ", got a " +
                           formatShape(shapeOf(0)) + " and a " + formatShape(shapeOf(1)));
    };
    switch (n.op) {
        case Op::Add:
        case Op::Sub:
        case Op::Mul: {
            auto a = shapeOf(0), b = shapeOf(1);
            if (a == b || b.empty()) return a;
            if (a.empty()) return b;
            mismatch("needs equal shapes or a scalar on one side");
            return {};
        }
        case Op::MatMul: {
            auto a = shapeOf(0), b = shapeOf(1);
            if (a.empty() || b.empty())
                fail(n.column, "'@' multiplies vectors and matrices; scale by a scalar with '*' (got a " +
                                   formatShape(a) + " and a " + formatShape(b) + ")");
            if (a.back() != b.front()) mismatch("needs the left operand's last axis to match the right's first");
            if (a.size() == 1 && b.size() == 1) return {};
            if (a.size() == 2 && b.size() == 2) return {a[0], b[1]};
            return {a.size() == 2 ? a[0] : b[1]};
        }
        case Op::Dot: {
            auto a = shapeOf(0), b = shapeOf(1);
            if (a.size() != 1 || b != a) mismatch("needs two vectors of the same length");
            return {};
        }
        case Op::Negate: return shapeOf(0);
        case Op::Sum:
        case Op::Max: return {};
        case Op::Transpose: {
            auto a = shapeOf(0);
            if (a.size() != 2)
                fail(n.column, "transpose needs a matrix, got a " + formatShape(a) +
                                   ": write a matrix as rows, e.g. [[1, 2], [3, 4]]");
            return {a[1], a[0]};
        }
        case Op::Literal: break;
    }
    return n.literal.shape;
}

// An integer literal used with a float reads as a float, as C converts constants.
void makeFloat(Node& literal) {
    for (int32_t& word : literal.literal.values) word = std::bit_cast<int32_t>(float(word));
    literal.literal.isFloat = true;
    literal.isFloat = true;
}

// The result type of `n` (float or integer), which is its operands': an integer literal beside a float
// becomes a float; a computed integer beside a float is an error at the operator (the GPU converts nothing
// the host could otherwise have to compute).
bool checkType(Node& n) {
    if (n.op == Op::Literal) return n.literal.isFloat;
    bool anyFloat = false;
    for (const auto& o : n.operands) anyFloat = anyFloat || o->isFloat;
    if (!anyFloat) return false;
    for (auto& o : n.operands) {
        if (o->isFloat) continue;
        if (o->op != Op::Literal)
            fail(n.column, std::string(opName(n.op)) + " mixes floats with the integers of '" + abbreviate(o->source) +
                               "': write that side's numbers as floats (2.0 for 2) to compute it in floats");
        makeFloat(*o);
    }
    return true;
}

// Checks that the launch computing `n` fits the machine (memory, threads) before anything runs.
void checkFits(const Node& n) {
    std::vector<Value> zeros;
    for (const auto& o : n.operands)
        zeros.push_back(Value{o->shape, std::vector<int32_t>(size_t(words(o->shape))), o->isFloat});
    KernelLaunch k = planLaunch(n, zeros);
    try {
        validateLaunch(k.launch, MachineSpec::standard());
    } catch (const DiagnosticError& e) {
        fail(n.column, "'" + abbreviate(n.source) + "' is too big for the GPU: " + e.diagnostics().front().message);
    }
}

class Parser {
public:
    explicit Parser(const std::string& text) : m_text(text), m_tokens(lex(text)) {}

    std::unique_ptr<Node> parseAll() {
        if (peek().kind == Token::End) fail(1, "empty expression: write e.g. [1, 2, 3] @ [4, 5, 6]");
        auto root = additive();
        if (peek().kind != Token::End)
            fail(peek().column,
                 "expected an operator (+ - * @) or the end of the expression, found " + describe(peek()));
        return root;
    }

private:
    const Token& peek() const { return m_tokens[m_pos]; }
    bool at(const char* punct) const { return peek().kind == Token::Punct && peek().text == punct; }
    Token take() { return m_tokens[m_pos++]; }
    void expect(const char* punct, const std::string& context) {
        if (!at(punct))
            fail(peek().column, std::string("expected '") + punct + "' " + context + ", found " + describe(peek()));
        ++m_pos;
    }

    // Finishes a node: its source text (from `start` to the last consumed token), shape and fit.
    std::unique_ptr<Node> finish(std::unique_ptr<Node> n, size_t startToken) {
        int from = m_tokens[startToken].column - 1;
        const Token& last = m_tokens[m_pos - 1];
        n->source = m_text.substr(size_t(from), size_t(last.column - 1 + int(last.text.size()) - from));
        n->shape = checkShape(*n);
        n->isFloat = checkType(*n);
        if (n->op != Op::Literal) {
            if (++m_operations > kMaxOperations)
                fail(n->column, "the expression runs more than " + std::to_string(kMaxOperations) +
                                    " operations (the limit; each is a launch): compute in smaller steps");
            checkFits(*n);
        }
        return n;
    }

    // Counts one level of nesting for as long as it lives; refuses more than kMaxNesting.
    class Nested {
    public:
        Nested(Parser& p, int column) : m_parser(p) {
            if (++m_parser.m_nesting > kMaxNesting)
                fail(column, "nested too deeply (limit " + std::to_string(kMaxNesting) +
                                 " levels of parentheses, calls and minus signs)");
        }
        ~Nested() { --m_parser.m_nesting; }
        Nested(const Nested&) = delete;
        Nested& operator=(const Nested&) = delete;

    private:
        Parser& m_parser;
    };

    std::unique_ptr<Node> binary(Op op, int column, std::unique_ptr<Node> lhs, std::unique_ptr<Node> rhs,
                                 size_t startToken) {
        auto n = makeNode(op, column);
        n->operands.push_back(std::move(lhs));
        n->operands.push_back(std::move(rhs));
        return finish(std::move(n), startToken);
    }

    std::unique_ptr<Node> additive() {
        size_t start = m_pos;
        auto lhs = term();
        while (at("+") || at("-")) {
            Token t = take();
            lhs = binary(t.text == "+" ? Op::Add : Op::Sub, t.column, std::move(lhs), term(), start);
        }
        return lhs;
    }

    std::unique_ptr<Node> term() {
        size_t start = m_pos;
        auto lhs = unary();
        while (at("*") || at("@")) {
            Token t = take();
            lhs = binary(t.text == "*" ? Op::Mul : Op::MatMul, t.column, std::move(lhs), unary(), start);
        }
        return lhs;
    }

    std::unique_ptr<Node> unary() {
        size_t start = m_pos;
        if (!at("-")) return postfix();
        Token minus = take();
        if (peek().kind == Token::Number) {  // a negative literal, not an operation
            auto n = makeNode(Op::Literal, minus.column);
            n->literal = literal({{take(), true}}, {});
            return finish(std::move(n), start);
        }
        auto n = makeNode(Op::Negate, minus.column);
        Nested level(*this, minus.column);
        n->operands.push_back(unary());
        return finish(std::move(n), start);
    }

    std::unique_ptr<Node> postfix() {
        size_t start = m_pos;
        auto n = primary();
        while (at(".")) {
            Token dot = take();
            if (peek().kind != Token::Name || peek().text != "T")
                fail(peek().column, "expected 'T' after '.' (m.T transposes a matrix), found " + describe(peek()));
            take();
            auto t = makeNode(Op::Transpose, dot.column);
            t->operands.push_back(std::move(n));
            n = finish(std::move(t), start);
        }
        return n;
    }

    std::unique_ptr<Node> primary() {
        size_t start = m_pos;
        const Token& t = peek();
        if (t.kind == Token::Number) {
            auto n = makeNode(Op::Literal, t.column);
            n->literal = literal({{take(), false}}, {});
            return finish(std::move(n), start);
        }
        if (at("[")) {
            auto n = makeNode(Op::Literal, t.column);
            std::vector<Element> elements;
            std::vector<int> shape = arrayLiteral(elements);
            n->literal = literal(elements, shape);
            return finish(std::move(n), start);
        }
        if (at("(")) {
            Nested level(*this, t.column);
            take();
            auto inner = additive();
            expect(")", "to close the '('");
            return inner;
        }
        if (t.kind == Token::Name) return call();
        fail(t.column,
             "expected a number, an array [ ... ], '(' or a function (dot, sum, max, transpose), found " + describe(t));
    }

    std::unique_ptr<Node> call() {
        size_t start = m_pos;
        Token name = take();
        Nested level(*this, name.column);
        struct Function {
            const char* name;
            Op op;
            int arity;
        };
        static const Function kFunctions[] = {
            {"dot", Op::Dot, 2}, {"sum", Op::Sum, 1}, {"max", Op::Max, 1}, {"transpose", Op::Transpose, 1}};
        const Function* f = nullptr;
        for (const auto& k : kFunctions)
            if (name.text == k.name) f = &k;
        if (!f) fail(name.column, "unknown function '" + name.text + "': the GPU offers dot, sum, max and transpose");
        expect("(", "after " + name.text);
        auto n = makeNode(f->op, name.column);
        for (int i = 0; i < f->arity; ++i) {
            if (i > 0) expect(",", "between " + name.text + "'s arguments (it takes " + std::to_string(f->arity) + ")");
            n->operands.push_back(additive());
        }
        if (at(","))
            fail(peek().column, name.text + " takes " + std::to_string(f->arity) + " argument" +
                                    (f->arity == 1 ? "" : "s") + ", found more");
        expect(")", "to close " + name.text + "(");
        return finish(std::move(n), start);
    }

    struct Element {
        Token number;
        bool negative = false;
    };

    // The literal's words: floats when any element is written as one (the others then read as floats
    // too, as C converts constants), integers otherwise.
    static Value literal(const std::vector<Element>& elements, std::vector<int> shape) {
        Value v{std::move(shape), {}, false};
        for (const Element& e : elements) v.isFloat = v.isFloat || e.number.isFloat;
        for (const Element& e : elements) {
            // An integer -0 is 0, as in C; a float -0.0 keeps its sign.
            bool negative =
                e.negative && (e.number.isFloat || e.number.text.find_first_not_of('0') != std::string::npos);
            v.values.push_back(v.isFloat ? floatBits(e.number, negative) : integer(e.number, e.negative));
        }
        return v;
    }

    static int32_t integer(const Token& t, bool negative) {
        // Up to 2^31 so that -2147483648 is a literal too.
        long long v = 0;
        for (char c : t.text) {
            v = v * 10 + (c - '0');
            if (v > (1LL << 31)) break;
        }
        if (v > (negative ? (1LL << 31) : (1LL << 31) - 1)) {
            std::string written = (negative ? "-" : "") + abbreviate(t.text);
            fail(t.column, "'" + written + "' does not fit a 32-bit integer (-2147483648 to 2147483647); write " +
                               written + ".0 to compute in floats");
        }
        return int32_t(negative ? -v : v);
    }

    // Whether a decimal beyond binary32's range is below one (it rounds to 0) rather than above: the power
    // of ten of its leading digit (1.5e3: 3, 0.02: -2), the exponent saturating.
    static bool belowOne(const std::string& text) {
        size_t e = std::min(text.find_first_of("eE"), text.size());
        long exponent = 0;
        for (size_t i = e + 1; i < text.size(); ++i)
            if (std::isdigit(static_cast<unsigned char>(text[i])))
                exponent = std::min(exponent * 10 + (text[i] - '0'), 1000000000L);
        if (e + 1 < text.size() && text[e + 1] == '-') exponent = -exponent;
        size_t point = std::min(text.find('.'), e), first = text.find_first_of("123456789");
        if (first >= e) return true;  // all zeros
        long lead = first < point ? long(point - first) - 1 : -long(first - point);
        return lead + exponent < 0;
    }

    // The binary32 nearest the decimal (ties to even), as its bits; -0.0 keeps its sign.
    static int32_t floatBits(const Token& t, bool negative) {
        float f = 0;
        auto [end, error] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), f);
        if (error == std::errc::result_out_of_range)
            fail(t.column, "'" + abbreviate(t.text) + "' " +
                               (belowOne(t.text) ? "is too small for a 32-bit float (the smallest is 1e-45; write 0)"
                                                 : "does not fit a 32-bit float (the largest is 3.4028235e38)"));
        if (error != std::errc() || end != t.text.data() + t.text.size())
            fail(t.column, "'" + abbreviate(t.text) + "' is not a number: write e.g. 1.5, .5 or 2e-3");
        auto bits = std::bit_cast<uint32_t>(f);
        return int32_t(negative ? bits ^ 0x80000000u : bits);
    }

    Element element() {
        bool negative = at("-");
        if (negative) take();
        if (peek().kind != Token::Number)
            fail(peek().column, "expected a number as an array element, found " + describe(peek()) +
                                    " (compute with operators outside the brackets)");
        return {take(), negative};
    }

    // [1, 2, 3] or [[1, 2], [3, 4]]: number literals only, rows of equal length. Appends the elements
    // row-major and returns the shape. A row (`row`) holds numbers only, so the recursion is two deep at most.
    std::vector<int> arrayLiteral(std::vector<Element>& elements, bool row = false) {
        int open = peek().column;
        take();
        if (at("]")) fail(peek().column, "an array needs at least one element");
        if (row && at("[")) fail(peek().column, "arrays nest two deep at most: a matrix is a list of rows");
        size_t first = elements.size();
        if (!at("[")) {
            for (;;) {
                elements.push_back(element());
                if (at("]")) break;
                expect(",", "or ']' after an array element");
            }
            take();
            return {int(elements.size() - first)};
        }
        int rows = 0, cols = -1;
        for (;;) {
            if (!at("["))
                fail(peek().column, "expected '[' to start row " + std::to_string(rows + 1) +
                                        " of the matrix opened at column " + std::to_string(open) + ", found " +
                                        describe(peek()));
            int rowColumn = peek().column;
            std::vector<int> row = arrayLiteral(elements, true);
            if (cols >= 0 && row[0] != cols)
                fail(rowColumn, "row " + std::to_string(rows + 1) + " has " + std::to_string(row[0]) +
                                    " elements; row 1 has " + std::to_string(cols));
            cols = row[0];
            ++rows;
            if (at("]")) break;
            expect(",", "or ']' after a matrix row");
        }
        take();
        return {rows, cols};
    }

    std::string m_text;
    std::vector<Token> m_tokens;
    size_t m_pos = 0;
    int m_nesting = 0;
    int m_operations = 0;
};

}  // namespace

std::string formatShape(const std::vector<int>& shape) {
    if (shape.empty()) return "scalar";
    if (shape.size() == 1) return "vector of " + std::to_string(shape[0]);
    return std::to_string(shape[0]) + "x" + std::to_string(shape[1]) + " matrix";
}

std::string formatValue(const Value& v) {
    auto word = [&](int32_t w) { return v.isFloat ? formatFloatLiteral(w) : std::to_string(w); };
    auto list = [&](size_t from, int n) {
        std::string s = "[";
        for (int i = 0; i < n; ++i) s += (i ? ", " : "") + word(v.values[from + size_t(i)]);
        return s + "]";
    };
    if (v.shape.empty()) return word(v.values.at(0));
    if (v.shape.size() == 1) return list(0, v.shape[0]);
    std::string s = "[";
    for (int r = 0; r < v.shape[0]; ++r) s += (r ? ", " : "") + list(size_t(r * v.shape[1]), v.shape[1]);
    return s + "]";
}

std::unique_ptr<Node> parse(const std::string& text) { return Parser(text).parseAll(); }

std::string pointAt(const std::string& text, int column) {
    return "  " + text + "\n  " + std::string(size_t(std::max(column - 1, 0)), ' ') + "^";
}

}  // namespace qgpu::expr
