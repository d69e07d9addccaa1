// Qwen3.5's chat template, rendered in C++ (no Jinja): ChatML turns (<|im_start|>role\n...<|im_end|>\n),
// a system turn listing the tools, assistant tool calls in Qwen3.5's XML form
//
//   <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n</parameter>\n</function>\n</tool_call>
//
// tool results as a user turn of <tool_response>\n...\n</tool_response> blocks, <think> blocks for the
// assistant turns after the last user query, and the generation prompt with thinking on
// ("<|im_start|>assistant\n<think>\n") or off ("<|im_start|>assistant\n<think>\n\n</think>\n\n").
// It reproduces what Hugging Face's apply_chat_template gives for the text part of the official
// template (message contents trimmed, tools dumped like Python's json.dumps, argument values that are
// not strings, objects or arrays written as Python's str(): True, False, None, 42, 1.5).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>
#include <vector>

#include "qgpu/runtime/text/Tokenizer.h"  // TextSpan

namespace qgpu::text {

inline constexpr std::string_view kImStart = "<|im_start|>";
inline constexpr std::string_view kImEnd = "<|im_end|>";
inline constexpr std::string_view kEndOfText = "<|endoftext|>";

struct ToolCall {
    std::string name;
    nlohmann::ordered_json arguments = nlohmann::ordered_json::object();  // key order is kept
};

struct ChatMessage {
    std::string role;  // "system" (first message only), "user", "assistant" or "tool"
    std::string content;
    std::string reasoning;            // assistant: its thinking; if empty, split from "<think>..</think>" in content
    std::vector<ToolCall> toolCalls;  // assistant
};

struct ChatOptions {
    bool addGenerationPrompt = true;
    bool thinking = true;
    // Render every assistant turn with its <think> block, not only those after the last user query (the
    // official template drops older ones). Then each turn only appends to the text the model has already
    // seen, so a chat can keep its model state across turns (ChatSession).
    bool keepAllReasoning = false;
};

// `tools`: an array of tool schemas as the OpenAI API spells them ({"type": "function", "function":
// {"name", "description", "parameters"}}), written into the system turn as given. Throws DiagnosticError
// for a system message that is not first, an unknown role, tool-call arguments that are not an object, or
// no user message that is a query (not only tool responses), as the official template refuses.
std::string renderChat(const std::vector<ChatMessage>& messages,
                       const nlohmann::ordered_json& tools = nlohmann::ordered_json::array(),
                       const ChatOptions& options = {});

// renderChat's text, and where each tool message's content (trimmed, as rendered) stands in it, in message
// order. The text is renderChat's, byte for byte; the spans let a tokenizer read tool results as ordinary
// text (Tokenizer::encode with literal spans), so a compiler error that quotes "<|im_end|>" from a kernel
// cannot end the turn it stands in. The template's own markup around them is never in a span.
struct RenderedChat {
    std::string text;
    std::vector<TextSpan> toolContent;
};
RenderedChat renderChatWithToolSpans(const std::vector<ChatMessage>& messages,
                                     const nlohmann::ordered_json& tools = nlohmann::ordered_json::array(),
                                     const ChatOptions& options = {});

// The tool calls in model output, in order: every <tool_call>...</tool_call> holding Qwen3.5's
// <function=NAME><parameter=KEY>VALUE</parameter>...</function> or Qwen3's JSON {"name": .., "arguments": {..}}.
// A parameter's value is a string unless `tools` declares another type for it (integer, number, boolean,
// object, array, null), in which case it is parsed as JSON (Python's True/False/None accepted). Throws
// DiagnosticError ("model output:LINE:COL: ...") for an unclosed block, malformed JSON, a missing name or
// a value that does not parse as its declared type.
std::vector<ToolCall> parseToolCalls(std::string_view text,
                                     const nlohmann::ordered_json& tools = nlohmann::ordered_json::array());

// json.dumps(value, ensure_ascii=False) as Python writes it (", " and ": " separators, keys in order):
// what the template's `tojson` filter produces.
std::string pythonJson(const nlohmann::ordered_json& value);

}  // namespace qgpu::text
