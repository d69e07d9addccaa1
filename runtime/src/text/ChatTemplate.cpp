#include "qgpu/runtime/text/ChatTemplate.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/text/Unicode.h"

namespace qgpu::text {
namespace {

using Json = nlohmann::ordered_json;

const char* const kToolInstructions =
    "\n\nIf you choose to call a function ONLY reply in the following format with NO suffix:\n\n"
    "<tool_call>\n<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
    "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple lines\n"
    "</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n"
    "- Function calls MUST follow the specified format: an inner <function=...></function> block must be nested "
    "within <tool_call></tool_call> XML tags\n"
    "- Required parameters MUST be specified\n"
    "- You may provide optional reasoning for your function call in natural language BEFORE the function call, "
    "but NOT after\n"
    "- If there is no function call available, answer the question like normal with your current knowledge and "
    "do not tell the user about function calls\n</IMPORTANT>";

[[noreturn]] void failChat(const std::string& msg) { throw DiagnosticError(Diagnostic{"chat", 0, 0, msg}); }

// Python's str.strip(): Unicode whitespace, plus U+001C..U+001F.
std::string trim(std::string_view s) {
    size_t first = s.size(), last = 0;
    for (size_t pos = 0; pos < s.size();) {
        Utf8Char c = decodeUtf8(s, pos);
        bool space = c.status == Utf8Char::Ok && (isWhitespace(c.cp) || (c.cp >= 0x1C && c.cp <= 0x1F));
        if (!space) {
            first = std::min(first, pos);
            last = pos + c.length;
        }
        pos += c.length;
    }
    return first < last ? std::string(s.substr(first, last - first)) : std::string();
}

std::string_view stripNewlines(std::string_view s, bool left, bool right) {
    while (left && !s.empty() && s.front() == '\n') s.remove_prefix(1);
    while (right && !s.empty() && s.back() == '\n') s.remove_suffix(1);
    return s;
}

bool startsWith(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool endsWith(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

void appendPythonString(std::string& out, const std::string& s) {
    out += '"';
    for (char ch : s) {
        switch (ch) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (uint8_t(ch) < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", unsigned(ch));
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    out += '"';
}

// Python's repr() of a finite float, which json.dumps and str() write: the shortest digits that read back
// as the same double, positional for decimal exponents -4..15 (with ".0" when integral: 1e15 is
// "1000000000000000.0"), else "d.ddde+XX" (1e16 is "1e+16", 1e-05 stays so).
std::string pythonFloat(double v) {
    if (!std::isfinite(v)) return Json(v).dump();  // not in JSON input
    char buf[40];
    char* end = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific).ptr;
    std::string_view sci(buf, size_t(end - buf));  // "-d.ddde-XX": shortest round-trip digits
    size_t e = sci.find('e');
    int exponent = std::atoi(std::string(sci.substr(e + 1)).c_str());
    if (exponent < -4 || exponent > 15) return std::string(sci);
    bool negative = sci[0] == '-';
    std::string digits;
    for (char c : sci.substr(negative, e - negative))
        if (c != '.') digits += c;
    int point = exponent + 1;  // digits before the decimal point
    std::string out = negative ? "-" : "";
    if (point <= 0) return out + "0." + std::string(size_t(-point), '0') + digits;
    if (point >= int(digits.size())) return out + digits + std::string(point - digits.size(), '0') + ".0";
    return out + digits.substr(0, point) + "." + digits.substr(point);
}

void appendPythonJson(std::string& out, const Json& v) {
    if (v.is_object()) {
        out += '{';
        bool first = true;
        for (const auto& [key, item] : v.items()) {
            if (!first) out += ", ";
            first = false;
            appendPythonString(out, key);
            out += ": ";
            appendPythonJson(out, item);
        }
        out += '}';
    } else if (v.is_array()) {
        out += '[';
        for (size_t i = 0; i < v.size(); ++i) {
            if (i) out += ", ";
            appendPythonJson(out, v[i]);
        }
        out += ']';
    } else if (v.is_string()) {
        appendPythonString(out, v.get_ref<const std::string&>());
    } else if (v.is_number_float()) {
        out += pythonFloat(v.get<double>());
    } else {
        out += v.dump();  // integers, true, false, null: the same spelling as Python's
    }
}

// The template's `args_value | string`, or `tojson` for objects and arrays.
std::string argumentText(const Json& v) {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_object() || v.is_array()) return pythonJson(v);
    if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
    if (v.is_null()) return "None";
    if (v.is_number_float()) return pythonFloat(v.get<double>());
    return v.dump();
}

void renderAssistant(std::string& out, const ChatMessage& m, bool afterLastQuery) {
    std::string content = trim(m.content), reasoning = m.reasoning;
    if (reasoning.empty()) {
        size_t close = content.find("</think>");
        if (close != std::string::npos) {
            std::string_view before = stripNewlines(std::string_view(content).substr(0, close), false, true);
            size_t open = before.rfind("<think>");
            if (open != std::string_view::npos) before.remove_prefix(open + 7);
            reasoning = std::string(stripNewlines(before, true, false));
            size_t lastClose = content.rfind("</think>");
            content = std::string(stripNewlines(std::string_view(content).substr(lastClose + 8), true, false));
        }
    }
    reasoning = trim(reasoning);
    out += std::string(kImStart) + "assistant\n";
    if (afterLastQuery) out += "<think>\n" + reasoning + "\n</think>\n\n";
    out += content;
    for (size_t k = 0; k < m.toolCalls.size(); ++k) {
        const ToolCall& call = m.toolCalls[k];
        if (k > 0)
            out += "\n";
        else if (!trim(content).empty())
            out += "\n\n";
        out += "<tool_call>\n<function=" + call.name + ">\n";
        if (!call.arguments.is_null() && !call.arguments.is_object())
            failChat("the arguments of tool call " + call.name + " are not a JSON object: " + call.arguments.dump());
        if (call.arguments.is_object())
            for (const auto& [key, value] : call.arguments.items())
                out += "<parameter=" + key + ">\n" + argumentText(value) + "\n</parameter>\n";
        out += "</function>\n</tool_call>";
    }
    out += std::string(kImEnd) + "\n";
}

// The index of the last user message that is a real query, not only tool responses; the template
// refuses a conversation without one.
size_t lastUserQuery(const std::vector<ChatMessage>& messages) {
    for (size_t i = messages.size(); i-- > 0;) {
        if (messages[i].role != "user") continue;
        std::string content = trim(messages[i].content);
        if (!(startsWith(content, "<tool_response>") && endsWith(content, "</tool_response>"))) return i;
    }
    if (messages.empty()) failChat("no messages: a chat needs at least a user message");
    failChat("no user query found in the messages: a chat needs a user message that is not only tool responses");
}

}  // namespace

std::string pythonJson(const nlohmann::ordered_json& value) {
    std::string out;
    appendPythonJson(out, value);
    return out;
}

std::string renderChat(const std::vector<ChatMessage>& messages, const nlohmann::ordered_json& tools,
                       const ChatOptions& options) {
    return renderChatWithToolSpans(messages, tools, options).text;
}

RenderedChat renderChatWithToolSpans(const std::vector<ChatMessage>& messages, const nlohmann::ordered_json& tools,
                                     const ChatOptions& options) {
    RenderedChat rendered;
    std::string& out = rendered.text;
    bool leadingSystem = !messages.empty() && messages[0].role == "system";
    if (tools.is_array() && !tools.empty()) {
        out += std::string(kImStart) + "system\n# Tools\n\nYou have access to the following functions:\n\n<tools>";
        for (const Json& tool : tools) out += "\n" + pythonJson(tool);
        out += "\n</tools>";
        out += kToolInstructions;
        if (leadingSystem) {
            std::string system = trim(messages[0].content);
            if (!system.empty()) out += "\n\n" + system;
        }
        out += std::string(kImEnd) + "\n";
    } else if (!tools.is_null() && !tools.is_array()) {
        failChat("tools must be a JSON array of tool schemas, not " + tools.dump());
    } else if (leadingSystem) {
        out += std::string(kImStart) + "system\n" + trim(messages[0].content) + std::string(kImEnd) + "\n";
    }

    // Thinking is shown for the assistant turns after the last real user query (not a tool response).
    size_t lastQuery = lastUserQuery(messages);

    for (size_t i = 0; i < messages.size(); ++i) {
        const ChatMessage& m = messages[i];
        if (m.role == "system") {
            if (i != 0) failChat("message " + std::to_string(i) + ": a system message must be the first message");
        } else if (m.role == "user") {
            out += std::string(kImStart) + "user\n" + trim(m.content) + std::string(kImEnd) + "\n";
        } else if (m.role == "assistant") {
            renderAssistant(out, m, i > lastQuery || options.keepAllReasoning);
        } else if (m.role == "tool") {
            if (i > 0 && messages[i - 1].role != "tool") out += std::string(kImStart) + "user";
            out += "\n<tool_response>\n";
            size_t begin = out.size();
            out += trim(m.content);
            rendered.toolContent.push_back({begin, out.size()});
            out += "\n</tool_response>";
            if (i + 1 == messages.size() || messages[i + 1].role != "tool") out += std::string(kImEnd) + "\n";
        } else {
            failChat("message " + std::to_string(i) + ": unknown role \"" + m.role +
                     "\" (expected system, user, assistant or tool)");
        }
    }
    if (options.addGenerationPrompt) {
        out += std::string(kImStart) + "assistant\n";
        out += options.thinking ? "<think>\n" : "<think>\n\n</think>\n\n";
    }
    return rendered;
}

}  // namespace qgpu::text
