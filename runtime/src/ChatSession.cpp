#include "qgpu/runtime/ChatSession.h"

#include <algorithm>
#include <filesystem>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/text/ChatTemplate.h"

namespace qgpu {
namespace {

// Tool calls are looked for after the reasoning only: a model may think aloud about calling a tool.
std::string_view afterReasoning(std::string_view text) {
    size_t close = text.rfind("</think>");
    return close == std::string_view::npos ? text : text.substr(close + 8);
}

}  // namespace

WeightFormat storedWeightFormat(const std::string& dir) {
    Checkpoint checkpoint(dir);
    const TensorView* embed = checkpoint.find("embed_tokens.weight");
    return embed && embed->dtype != DType::F32 ? WeightFormat::BF16 : WeightFormat::F32;
}

ChatHost loadChatHost(const std::string& dir, const ChatHostOptions& options) {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!fs::is_directory(dir, ec))
        failAt(dir,
               "no such directory; give --host a Qwen3.5 checkpoint directory (config.json, its safetensors "
               "and tokenizer.json)");
    std::string tokenizerPath = checkpointFile(dir, "tokenizer.json", "the host needs its tokenizer.json");
    text::Tokenizer tokenizer = text::Tokenizer::fromFile(tokenizerPath);
    // A larger tokenizer would feed the model ids past its embedding table.
    int vocabSize = Qwen35Config::load(dir).vocabSize;
    if (tokenizer.vocabSize() > vocabSize)
        failAt(tokenizerPath, "has " + std::to_string(tokenizer.vocabSize()) +
                                  " tokens but config.json's vocab_size is " + std::to_string(vocabSize) +
                                  "; use the tokenizer.json that came with this checkpoint");
    for (std::string_view special : {text::kImStart, text::kImEnd})
        if (int id = tokenizer.tokenId(special); id < 0 || !tokenizer.isSpecial(id))
            failAt(tokenizerPath, "has no special token " + std::string(special) +
                                      ": chat needs a Qwen chat tokenizer (the chat template is written with it); "
                                      "use the tokenizer.json that came with a Qwen3.5 checkpoint");
    ModelLoadOptions load{options.weights.value_or(storedWeightFormat(dir)), options.device, true, options.progress};
    return ChatHost{Qwen35Model::load(dir, load), std::move(tokenizer)};
}

ChatSession::ChatSession(const Qwen35Model& model, const text::Tokenizer& tokenizer, ChatSessionOptions options)
    : m_model(model), m_tokenizer(tokenizer), m_options(std::move(options)), m_state(model.newState()) {}

void ChatSession::clear() {
    m_messages.clear();
    m_state = m_model.newState();
    m_seen.clear();
    m_seenTokens = 0;
}

void ChatSession::refuse(const std::string& message) {
    while (!m_messages.empty() && (m_messages.back().role == "user" || m_messages.back().role == "tool"))
        m_messages.pop_back();
    throw DiagnosticError(Diagnostic{"", 0, 0, message});
}

ChatReply ChatSession::send(const std::string& user, const TokenCallback& onToken) {
    append(text::ChatMessage{"user", user, {}, {}});
    return reply(onToken);
}

ChatReply ChatSession::reply(const TokenCallback& onToken) {
    text::ChatOptions chat;
    chat.thinking = m_options.thinking;
    chat.keepAllReasoning = m_options.keepAllReasoning;
    text::RenderedChat chatText = text::renderChatWithToolSpans(m_messages, m_options.tools, chat);
    const std::string& rendered = chatText.text;

    // The state can continue only if the new rendering extends, byte for byte, what it has read. The new part
    // then starts at <|im_end|>, an added token that the tokenizer cuts out first, so encoding it alone gives
    // the tokens a fresh read would (after a reply cut by the token limit, its unread last token comes first).
    ChatReply out;
    out.fromScratch = m_seen.empty() || rendered.compare(0, m_seen.size(), m_seen) != 0;
    size_t from = out.fromScratch ? 0 : m_seen.size();
    std::string fresh = rendered.substr(from);
    if (fresh.size() > kMaxNewBytes)
        refuse("the new text is " + std::to_string(fresh.size()) + " bytes; chat reads at most " +
               std::to_string(kMaxNewBytes) + " at a time: send a shorter message");
    // Tool results are what a kernel, a compiler or an expression gave back, not the template's markup: they
    // are read as ordinary text, so a "<|im_end|>" or "</tool_response>" that a compiler error quotes from a
    // kernel is its characters, never the token that ends the turn. The rendered text stays the template's.
    std::vector<text::TextSpan> literal;
    for (const text::TextSpan& span : chatText.toolContent)
        if (span.end > from) literal.push_back({std::max(span.begin, from) - from, span.end - from});
    std::vector<int> prompt = m_tokenizer.encode(fresh, literal);
    size_t context = (out.fromScratch ? 0 : m_seenTokens) + prompt.size();
    if (context > size_t(m_options.maxContextTokens))
        refuse("the conversation would hold " + std::to_string(context) + " tokens, more than chat's limit of " +
               std::to_string(m_options.maxContextTokens) + ": send a shorter message or start a new conversation");
    if (out.fromScratch) {
        m_state = m_model.newState();
        m_seen.clear();
        m_seenTokens = 0;
    }
    out.prompt = prompt;

    GenerationOptions gen = m_options.generation;
    for (std::string_view stop : {text::kImEnd, text::kEndOfText})
        if (int id = m_tokenizer.tokenId(stop); id >= 0) gen.stop.add(id);
    out.generation = generate(m_model, m_state, prompt, gen, &m_tokenizer, onToken);
    out.text = out.generation.text;

    // The state has read every generated token but the last (Generator.h); the reply keeps the tokens' exact
    // bytes, not the streamed text with U+FFFD, so that rendering it again gives what the model read.
    std::vector<int> tokens = out.generation.tokens;
    std::vector<int> read(tokens.begin(), tokens.empty() ? tokens.end() : tokens.end() - 1);
    m_seen += fresh + m_tokenizer.decode(read);
    m_seenTokens += prompt.size() + read.size();
    if (out.generation.reason == GenerationResult::StopToken) tokens.pop_back();
    std::string content = m_tokenizer.decode(tokens);

    try {
        out.toolCalls = text::parseToolCalls(afterReasoning(content), m_options.tools);
    } catch (const DiagnosticError& e) {
        out.toolCallError = e.what();
    }
    m_messages.push_back(text::ChatMessage{"assistant", content, {}, {}});
    return out;
}

}  // namespace qgpu
