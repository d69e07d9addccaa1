// Our side of the text conformance tests (tokenizer.py, chat_template.py): reads JSON lines on stdin and
// writes one JSON line per input line on stdout.
//
//   qgpu_conformance_text tokenize TOKENIZER_JSON
//       {"text": "..."} -> {"ids": [...], "decoded": "..."}   (Tokenizer::encode, then decode of those ids;
//                                                              "decoded_bytes": [...] when not valid UTF-8)
//   qgpu_conformance_text chat-template
//       {"messages": [...], "tools": [...], "add_generation_prompt": b, "enable_thinking": b}
//           -> {"text": "..."} or {"error": "..."}            (renderChat)
//
// Messages are spelled as in the OpenAI API and transformers' apply_chat_template: role, content (a string,
// null, or a list of {"type": "text", "text": ...}), reasoning_content, and tool_calls of
// {"function": {"name", "arguments": {...}}} (or {"name", "arguments"}).
#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/text/ChatTemplate.h"
#include "qgpu/runtime/text/Tokenizer.h"
#include "qgpu/runtime/text/Unicode.h"

namespace {

using Json = nlohmann::ordered_json;
using namespace qgpu::text;

// A message's content as the template's render_content joins it; throws for what has no text form here.
std::string contentText(const Json& content) {
    if (content.is_null()) return "";
    if (content.is_string()) return content.get<std::string>();
    if (!content.is_array())
        throw std::invalid_argument("content is neither a string, null nor a list: " + content.dump());
    std::string text;
    for (const Json& item : content) {
        if (!item.is_object() || !item.contains("text") || !item["text"].is_string())
            throw std::invalid_argument("content item without text: " + item.dump());
        text += item["text"].get<std::string>();
    }
    return text;
}

ToolCall toolCall(const Json& call) {
    const Json& f = call.contains("function") ? call["function"] : call;
    ToolCall out;
    out.name = f.value("name", "");
    out.arguments = f.contains("arguments") ? f["arguments"] : Json();  // absent: no parameters
    return out;
}

ChatMessage chatMessage(const Json& m) {
    ChatMessage out;
    out.role = m.value("role", "");
    out.content = contentText(m.value("content", Json()));
    if (m.contains("reasoning_content") && m["reasoning_content"].is_string())
        out.reasoning = m["reasoning_content"].get<std::string>();
    if (m.contains("tool_calls") && m["tool_calls"].is_array())
        for (const Json& call : m["tool_calls"]) out.toolCalls.push_back(toolCall(call));
    return out;
}

Json renderLine(const Json& in) {
    std::vector<ChatMessage> messages;
    for (const Json& m : in.value("messages", Json::array())) messages.push_back(chatMessage(m));
    ChatOptions options;
    options.addGenerationPrompt = in.value("add_generation_prompt", false);
    options.thinking = in.value("enable_thinking", true);
    Json tools = in.contains("tools") && !in["tools"].is_null() ? in["tools"] : Json::array();
    try {
        return {{"text", renderChat(messages, tools, options)}};
    } catch (const qgpu::DiagnosticError& e) {
        return {{"error", e.what()}};
    }
}

Json tokenizeLine(const Tokenizer& tokenizer, const Json& in) {
    std::vector<int> ids = tokenizer.encode(in.at("text").get<std::string>());
    std::string decoded = tokenizer.decode(ids);
    Json out = {{"ids", ids}};
    if (isValidUtf8(decoded)) {
        out["decoded"] = decoded;
    } else {
        Json bytes = Json::array();
        for (unsigned char b : decoded) bytes.push_back(int(b));
        out["decoded_bytes"] = bytes;
    }
    return out;
}

template <typename Answer>
int eachLine(Answer answer) {
    std::string line;
    for (size_t n = 1; std::getline(std::cin, line); ++n) {
        if (line.empty()) continue;
        try {
            std::cout << answer(Json::parse(line)).dump() << '\n';
        } catch (const std::exception& e) {  // malformed input: a bug in the calling script
            std::cerr << "qgpu_conformance_text: input line " << n << ": " << e.what() << '\n';
            return 2;
        }
    }
    std::cout.flush();
    return 0;
}

int usage() {
    std::cerr << "usage: qgpu_conformance_text tokenize TOKENIZER_JSON | chat-template   (JSON lines on stdin)\n";
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    std::ios::sync_with_stdio(false);
    std::string command = argc > 1 ? argv[1] : "";
    try {
        if (command == "tokenize" && argc == 3) {
            Tokenizer tokenizer = Tokenizer::fromFile(argv[2]);
            return eachLine([&](const Json& in) { return tokenizeLine(tokenizer, in); });
        }
        if (command == "chat-template" && argc == 2) return eachLine(renderLine);
    } catch (const qgpu::DiagnosticError& e) {
        std::cerr << e.what() << '\n';
        return 1;
    }
    return usage();
}
