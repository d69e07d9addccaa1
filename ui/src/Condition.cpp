#include "qgpu/ui/Condition.h"

#include <cctype>
#include <stdexcept>

namespace qgpu {

namespace {

struct ConditionError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Recursive descent over the text, evaluating as it goes; C's precedence.
class Evaluator {
public:
    Evaluator(const std::string& text, const NameLookup& lookup) : m_text(text), m_lookup(lookup) {}

    int64_t whole() {
        int64_t v = orExpr();
        skip();
        if (m_at < m_text.size()) fail("'" + m_text.substr(m_at, 1) + "' is not expected here");
        return v;
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw ConditionError("column " + std::to_string(m_at + 1) + ": " + what);
    }
    void skip() {
        while (m_at < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_at]))) ++m_at;
    }
    bool take(const std::string& op) {
        skip();
        if (m_text.compare(m_at, op.size(), op) != 0) return false;
        // "<" must not take the first half of "<=", "!" of "!=", "&"-less "&&" aside.
        char after = m_at + op.size() < m_text.size() ? m_text[m_at + op.size()] : '\0';
        if ((op == "<" || op == ">" || op == "!" || op == "=") && after == '=') return false;
        m_at += op.size();
        return true;
    }
    int64_t orExpr() {
        int64_t v = andExpr();
        while (take("||")) v = (andExpr() != 0) || v != 0;
        return v;
    }
    int64_t andExpr() {
        int64_t v = comparison();
        while (take("&&")) v = (comparison() != 0) && v != 0;
        return v;
    }
    int64_t comparison() {
        int64_t a = sum();
        for (const char* op : {"==", "!=", "<=", ">=", "<", ">"}) {
            if (!take(op)) continue;
            int64_t b = sum();
            std::string o = op;
            return o == "=="   ? a == b
                   : o == "!=" ? a != b
                   : o == "<=" ? a <= b
                   : o == ">=" ? a >= b
                   : o == "<"  ? a < b
                               : a > b;
        }
        return a;
    }
    int64_t sum() {
        int64_t v = product();
        for (;;) {
            if (take("+"))
                v += product();
            else if (take("-"))
                v -= product();
            else
                return v;
        }
    }
    int64_t product() {
        int64_t v = unary();
        for (;;) {
            bool divide = false, modulo = false;
            if (take("*")) {
                v *= unary();
                continue;
            }
            if (!(divide = take("/")) && !(modulo = take("%"))) return v;
            skip();
            size_t divisor = m_at;
            int64_t d = unary();
            if (d == 0) {
                m_at = divisor;
                fail(divide ? "division by zero" : "remainder by zero");
            }
            v = divide ? v / d : v % d;
        }
    }
    int64_t unary() {
        if (take("!")) return unary() == 0;
        if (take("-")) return -unary();
        return primary();
    }
    int64_t primary() {
        skip();
        if (take("(")) {
            int64_t v = orExpr();
            if (!take(")")) fail("a ')' is missing");
            return v;
        }
        if (m_at < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_at]))) return number();
        return name();
    }
    int64_t number() {
        size_t used = 0;
        int64_t v = std::stoll(m_text.substr(m_at), &used, 0);
        m_at += used;
        return v;
    }
    int64_t name() {
        size_t start = m_at;
        while (m_at < m_text.size() &&
               (std::isalnum(static_cast<unsigned char>(m_text[m_at])) || m_text[m_at] == '_' || m_text[m_at] == '.'))
            ++m_at;
        if (start == m_at)
            fail(m_at < m_text.size() ? "'" + m_text.substr(m_at, 1) + "' is not expected here"
                                      : "the condition ends too soon");
        std::string n = m_text.substr(start, m_at - start);
        if (take("[")) {  // an array's element: the lookup reads "out[3]"
            int64_t index = orExpr();
            if (!take("]")) fail("a ']' is missing");
            n += "[" + std::to_string(index) + "]";
        }
        std::optional<int64_t> v = m_lookup(n);
        if (!v) {
            m_at = start;
            fail("'" + n +
                 "' is not known here: threadIdx, blockIdx, blockDim and gridDim (.x .y .z), the "
                 "registers r0..r15, the launch's arrays (out[3]) and a debug build's variables in scope");
        }
        return *v;
    }

    const std::string& m_text;
    const NameLookup& m_lookup;
    size_t m_at = 0;
};

}  // namespace

ConditionResult evaluateCondition(const std::string& text, const NameLookup& lookup) {
    try {
        int64_t value = Evaluator(text, lookup).whole();
        return {value != 0, value, {}};
    } catch (const ConditionError& e) {
        return {false, 0, e.what()};
    } catch (const std::out_of_range&) {
        return {false, 0, "a number is too large"};
    }
}

}  // namespace qgpu
