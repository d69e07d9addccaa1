// A conversation with a Qwen35Model: the messages, rendered with Qwen3.5's chat template (ChatTemplate.h), and
// the model state that has read them. Each turn feeds only the text the model has not seen yet, so a long
// chat does not re-read its history. Torch-free header.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "qgpu/runtime/Generator.h"
#include "qgpu/runtime/Qwen35Model.h"
#include "qgpu/runtime/text/ChatTemplate.h"
#include "qgpu/runtime/text/Tokenizer.h"

namespace qgpu {

// A chat host directory: config.json, its safetensors and tokenizer.json.
struct ChatHost {
    std::unique_ptr<Qwen35Model> model;
    text::Tokenizer tokenizer;
};

struct ChatHostOptions {
    std::optional<WeightFormat> weights;  // default: as stored (bf16 for a bf16 or f16 checkpoint, else f32)
    ComputeDevice device = ComputeDevice::Auto;
    std::function<void(int done, int total)> progress;  // after each tensor
};

// bf16 when the checkpoint's embedding is stored in 16 bits, else f32.
WeightFormat storedWeightFormat(const std::string& dir);

// Loads the tokenizer first (cheap), then the text model: for a combined checkpoint (`qgpu build --host`)
// only the host's layers over the host's dims (ModelLoadOptions::textOnly). Throws DiagnosticError naming the
// path for a missing directory or tokenizer.json, a bad checkpoint, or a tokenizer with more tokens than
// the checkpoint's vocabulary.
ChatHost loadChatHost(const std::string& dir, const ChatHostOptions& options = {});

struct ChatSessionOptions {
    bool thinking = false;  // the generation prompt opens a <think> block for the model to fill
    // Keep every assistant turn's <think> block in the history (ChatOptions::keepAllReasoning). Without it the
    // history is rendered exactly like the official template, which drops the older blocks at each new user
    // query, so the text no longer extends what the model has read and every turn re-reads the whole chat.
    bool keepAllReasoning = true;
    nlohmann::ordered_json tools = nlohmann::ordered_json::array();  // OpenAI-style schemas; empty: none
    // <|im_end|> and <|endoftext|> are always added to the stop tokens.
    GenerationOptions generation;
    // The most tokens the conversation may hold: the prompt of a reply that would pass it is refused.
    int maxContextTokens = 32768;
};

struct ChatReply {
    std::string text;  // as streamed: the reasoning and "</think>" first when thinking, no stop token
    std::vector<text::ToolCall> toolCalls;
    std::string toolCallError;  // why the reply's tool calls did not parse (the model wrote a malformed one)
    GenerationResult generation;
    std::vector<int> prompt;   // the tokens fed before generating: the new turns and the generation prompt
                               // (tool results among them read as ordinary text: ChatSession)
    bool fromScratch = false;  // the whole conversation was fed to a fresh state (first turn, or changed history)

    int promptTokens() const { return int(prompt.size()); }
};

class ChatSession {
public:
    ChatSession(const Qwen35Model& model, const text::Tokenizer& tokenizer, ChatSessionOptions options = {});

    ChatSessionOptions& options() { return m_options; }  // may change between turns
    const std::vector<text::ChatMessage>& messages() const { return m_messages; }
    const ModelState& state() const { return m_state; }

    // Adds a message without generating: a system prompt, tool results, or an earlier exchange.
    void append(text::ChatMessage message) { m_messages.push_back(std::move(message)); }
    // Generates the assistant's turn after the messages so far and appends it. New text over kMaxNewBytes,
    // or a conversation that would pass maxContextTokens, is refused with a DiagnosticError before the model
    // reads anything; the user and tool messages after the last assistant turn are then dropped, so the
    // chat can go on. The content of "tool" messages is read as ordinary text: special-token text in it
    // ("<|im_end|>", "<tool_response>") becomes its characters' tokens, never the special token, while the
    // template's own markup around it is read as usual (ChatTemplate.h: renderChatWithToolSpans).
    ChatReply reply(const TokenCallback& onToken = {});
    ChatReply send(const std::string& user, const TokenCallback& onToken = {});
    void clear();  // forgets the conversation and the state

    static constexpr size_t kMaxNewBytes = 1 << 20;

private:
    void refuse(const std::string& message);  // drops the unanswered messages, throws DiagnosticError

    const Qwen35Model& m_model;
    const text::Tokenizer& m_tokenizer;
    ChatSessionOptions m_options;
    std::vector<text::ChatMessage> m_messages;
    ModelState m_state;
    std::string m_seen;       // the exact bytes the state has read
    size_t m_seenTokens = 0;  // and the tokens they were
};

}  // namespace qgpu
