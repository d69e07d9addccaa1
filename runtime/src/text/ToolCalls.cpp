// parseToolCalls (ChatTemplate.h): tool calls out of model output.
#include <algorithm>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/JsonDocument.h"
#include "qgpu/runtime/text/ChatTemplate.h"

namespace qgpu::text {
namespace {

using Json = nlohmann::ordered_json;

constexpr std::string_view kOpen = "<tool_call>", kClose = "</tool_call>",
                           kFunction = "<function=", kFunctionEnd = "</function>",
                           kParameter = "<parameter=", kParameterEnd = "</parameter>";

class ToolCallParser {
public:
    ToolCallParser(std::string_view text, const Json& tools) : m_text(text), m_tools(tools) {}

    std::vector<ToolCall> parse() {
        std::vector<ToolCall> calls;
        for (size_t pos = m_text.find(kOpen); pos != std::string_view::npos; pos = m_text.find(kOpen, pos)) {
            size_t end = m_text.find(kClose, pos);
            if (end == std::string_view::npos) fail(pos, "<tool_call> is not closed by </tool_call>");
            size_t from = skipSpace(pos + kOpen.size(), end), to = end;
            while (to > from && isSpace(m_text[to - 1])) --to;
            std::string_view body = m_text.substr(from, to - from);
            if (body.substr(0, 1) == "{")
                calls.push_back(parseJson(body, from));
            else if (body.substr(0, kFunction.size()) == kFunction)
                calls.push_back(parseXml(from, to));
            else
                fail(from, "expected <function=NAME> or a JSON object inside <tool_call>");
            pos = end + kClose.size();
        }
        return calls;
    }

private:
    static bool isSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }
    size_t skipSpace(size_t pos, size_t end) const {
        while (pos < end && isSpace(m_text[pos])) ++pos;
        return pos;
    }

    [[noreturn]] void fail(size_t offset, const std::string& msg) const {
        throw DiagnosticError(diagnosticAtOffset("model output", m_text, offset, msg));
    }

    // Qwen3's form: {"name": "f", "arguments": {...}} (arguments may also be a string holding JSON).
    ToolCall parseJson(std::string_view body, size_t at) const {
        Json j;
        try {
            j = parseJsonDocument<Json>(body, "model output");
        } catch (const DiagnosticError& e) {
            fail(at, "malformed JSON in <tool_call>: " + e.diagnostics().front().message);
        }
        if (!j.is_object() || !j.contains("name") || !j["name"].is_string() || j["name"].get<std::string>().empty())
            fail(at, "the JSON in <tool_call> needs a \"name\" string: " + j.dump());
        ToolCall call{j["name"].get<std::string>(), Json::object()};
        if (j.contains("arguments")) {
            Json args = j["arguments"];
            if (args.is_string()) {
                try {
                    args = parseJsonDocument<Json>(args.get<std::string>(), "model output");
                } catch (const DiagnosticError& e) {
                    fail(at, "the \"arguments\" string of " + call.name +
                                 " is not valid JSON: " + e.diagnostics().front().message);
                }
            }
            if (!args.is_object()) fail(at, "the \"arguments\" of " + call.name + " are not a JSON object");
            call.arguments = std::move(args);
        }
        return call;
    }

    // Qwen3.5's form: <function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n...</function>
    ToolCall parseXml(size_t pos, size_t end) const {
        size_t nameEnd = m_text.find('>', pos);
        if (nameEnd == std::string_view::npos || nameEnd >= end) fail(pos, "<function= is not closed by '>'");
        ToolCall call{std::string(m_text.substr(pos + kFunction.size(), nameEnd - pos - kFunction.size())),
                      Json::object()};
        if (call.name.empty()) fail(pos, "<function=> has no name");
        pos = skipSpace(nameEnd + 1, end);
        while (m_text.substr(pos, kParameter.size()) == kParameter) {
            size_t keyEnd = m_text.find('>', pos);
            if (keyEnd == std::string_view::npos || keyEnd >= end) fail(pos, "<parameter= is not closed by '>'");
            std::string key(m_text.substr(pos + kParameter.size(), keyEnd - pos - kParameter.size()));
            size_t close = m_text.find(kParameterEnd, keyEnd);
            if (close == std::string_view::npos || close >= end)
                fail(pos, "<parameter=" + key + "> is not closed by </parameter>");
            std::string_view value = m_text.substr(keyEnd + 1, close - keyEnd - 1);
            if (value.substr(0, 1) == "\n") value.remove_prefix(1);  // the template's own newlines
            if (!value.empty() && value.back() == '\n') value.remove_suffix(1);
            call.arguments[key] = convert(call.name, key, value, keyEnd + 1);
            pos = skipSpace(close + kParameterEnd.size(), end);
        }
        if (m_text.substr(pos, kFunctionEnd.size()) != kFunctionEnd)
            fail(pos, "expected <parameter=KEY> or </function> in <function=" + call.name + ">");
        if (skipSpace(pos + kFunctionEnd.size(), end) != end)
            fail(pos + kFunctionEnd.size(), "unexpected text after </function> inside <tool_call>");
        return call;
    }

    // The JSON-schema type the tools declare for a parameter, "" if unknown.
    std::string declaredType(const std::string& function, const std::string& key) const {
        if (!m_tools.is_array()) return "";
        for (const Json& tool : m_tools) {
            const Json& f = tool.contains("function") ? tool["function"] : tool;
            if (!f.is_object() || f.value("name", "") != function) continue;
            const Json* p = &f;
            for (const char* step : {"parameters", "properties"}) {
                if (!p->contains(step) || !(*p)[step].is_object()) return "";
                p = &(*p)[step];
            }
            if (!p->contains(key) || !(*p)[key].is_object()) return "";
            const Json& type = (*p)[key].value("type", Json());
            return type.is_string() ? type.get<std::string>() : "";
        }
        return "";
    }

    Json convert(const std::string& function, const std::string& key, std::string_view value, size_t at) const {
        std::string type = declaredType(function, key);
        if (type.empty() || type == "string") return std::string(value);
        std::string text(value);
        if (text == "True" || text == "False" || text == "None")  // the template writes Python's spelling
            text = text == "True" ? "true" : text == "False" ? "false" : "null";
        Json v;
        bool parsed = true;
        try {
            v = parseJsonDocument<Json>(text, "model output");
        } catch (const DiagnosticError&) {
            parsed = false;
        }
        bool ok = parsed && ((type == "integer" && v.is_number_integer()) || (type == "number" && v.is_number()) ||
                             (type == "boolean" && v.is_boolean()) || (type == "object" && v.is_object()) ||
                             (type == "array" && v.is_array()) || (type == "null" && v.is_null()));
        if (!ok) {
            bool known = type == "integer" || type == "number" || type == "boolean" || type == "object" ||
                         type == "array" || type == "null";
            if (!known) return std::string(value);  // a type we do not check: keep the text
            fail(at, "parameter " + key + " of " + function + " should be " + type + " but is \"" + std::string(value) +
                         "\"");
        }
        return v;
    }

    std::string_view m_text;
    const Json& m_tools;
};

}  // namespace

std::vector<ToolCall> parseToolCalls(std::string_view text, const nlohmann::ordered_json& tools) {
    return ToolCallParser(text, tools).parse();
}

}  // namespace qgpu::text
