// Generation and chat on a tiny random model with a byte-level tokenizer made here: greedy against a
// hand-written argmax loop, seeded sampling, stop tokens, limits, cancellation, streaming, chat turns that
// keep the model state, the chat host's errors and a smoke run of `qgpu chat`.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "../text/TextTestUtil.h"
#include "TinyConfig.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/ChatSession.h"
#include "qgpu/runtime/Generator.h"
#include "qgpu/runtime/text/Unicode.h"

using namespace qgpu;
namespace fs = std::filesystem;

namespace {

constexpr int kImStartId = 256, kImEndId = 257, kEndOfTextId = 258;

// Untied: with tied embeddings and small random weights the last token's own logit wins, and greedy
// repeats it forever (a prompt ending in "\n" gives only newlines, which the chat template trims).
// The vocabulary is the tokenizer's 256 bytes and 3 special tokens.
Qwen35Config tinyConfig() {
    return qgpu::testing::tinyConfig({LayerType::LinearAttention, LayerType::FullAttention}, false, 259);
}

nlohmann::json tokenizerJson() {
    text::testing::TokenizerSpec spec;
    spec.added = {
        {kImStartId, "<|im_start|>", true}, {kImEndId, "<|im_end|>", true}, {kEndOfTextId, "<|endoftext|>", true}};
    return text::testing::tokenizerJson(spec);
}

const text::Tokenizer& tokenizer() {
    static const text::Tokenizer tok = text::Tokenizer::fromJson(tokenizerJson().dump());
    return tok;
}

const Qwen35Model& model() {
    static const auto m = Qwen35Model::random(tinyConfig(), 3);
    return *m;
}

GenerationOptions greedy(int maxNewTokens) {
    GenerationOptions o;
    o.maxNewTokens = maxNewTokens;
    return o;
}

// A random model whose greedy first reply to "hi" survives the chat template's trimming (no leading or
// trailing whitespace), so re-rendering the conversation gives exactly what the model read. Which seed
// that is depends on the kernels' rounding, so it is searched, not hard-coded.
const Qwen35Model& chatModel() {
    static const auto m = [] {
        for (uint64_t seed = 3;; ++seed) {
            auto candidate = Qwen35Model::random(tinyConfig(), seed);
            ChatSessionOptions options;
            options.generation = greedy(6);
            ChatSession probe(*candidate, tokenizer(), options);
            std::string reply = probe.send("hi").text;
            auto blank = [](char ch) { return ch == ' ' || ch == '\n' || ch == '\t' || ch == '\r'; };
            if (!reply.empty() && !blank(reply.front()) && !blank(reply.back())) return candidate;
        }
    }();
    return *m;
}

GenerationResult run(const GenerationOptions& o, const TokenCallback& onToken = {}) {
    ModelState state = model().newState();
    return generate(model(), state, tokenizer().encode("hello"), o, &tokenizer(), onToken);
}

// What streaming the tokens gives, held-back bytes flushed at the end.
std::string streamed(const std::vector<int>& tokens) {
    text::StreamDecoder d(tokenizer());
    std::string out;
    for (int t : tokens) out += d.push(t);
    return out + d.flush();
}

fs::path tempDir(const std::string& name) {
    fs::path d = fs::temp_directory_path() / ("qgpu-gen-" + name + "-" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
}

void writeFile(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

}  // namespace

TEST(Generator, GreedyEqualsArgmaxLoop) {
    GenerationResult r = run(greedy(8));
    ModelState state = model().newState();
    std::vector<float> logits = model().forward(tokenizer().encode("hello"), state);
    std::vector<int> expected;
    for (int i = 0; i < 8; ++i) {
        expected.push_back(text::argmax(logits));
        logits = model().forward({expected.back()}, state);
    }
    EXPECT_EQ(r.tokens, expected);
    EXPECT_EQ(r.reason, GenerationResult::MaxTokens);
    EXPECT_EQ(r.text, streamed(r.tokens));
}

TEST(Generator, SamplingIsReproducibleForASeed) {
    GenerationOptions o = greedy(12);
    o.sampling.temperature = 1.f;
    o.sampling.seed = 7;
    GenerationResult a = run(o), b = run(o);
    o.sampling.seed = 8;
    GenerationResult c = run(o);
    EXPECT_EQ(a.tokens, b.tokens);
    EXPECT_NE(a.tokens, c.tokens);  // near-uniform logits over 259 tokens: 12 equal draws are impossible in practice
}

TEST(Generator, StopTokenEndsGenerationAndIsNotText) {
    std::vector<int> free = run(greedy(8)).tokens;
    // Stop at the first occurrence of what greedy produces at step 3.
    int stop = free[3];
    size_t at = std::find(free.begin(), free.end(), stop) - free.begin();
    GenerationOptions o = greedy(8);
    o.stop.add(stop);
    std::string pieces;
    GenerationResult r = run(o, [&](int, const std::string& piece) {
        pieces += piece;
        return true;
    });
    EXPECT_EQ(r.reason, GenerationResult::StopToken);
    EXPECT_EQ(r.tokens, std::vector<int>(free.begin(), free.begin() + at + 1));
    EXPECT_EQ(r.text, streamed(std::vector<int>(free.begin(), free.begin() + at)));
    EXPECT_EQ(pieces, r.text);
}

TEST(Generator, ForcedTokensAreChosenReadAndThenTheSamplerTakesOver) {
    // Forcing "ok" then greedy: the model reads the forced tokens, so what follows is greedy after "hello" + "ok".
    GenerationOptions o = greedy(5);
    o.forced = tokenizer().encode("ok");
    GenerationResult r = run(o);
    ASSERT_EQ(r.tokens.size(), 5u);
    EXPECT_EQ(std::vector<int>(r.tokens.begin(), r.tokens.begin() + 2), o.forced);
    ModelState state = model().newState();
    GenerationResult after = generate(model(), state, tokenizer().encode("hellook"), greedy(3), &tokenizer());
    EXPECT_EQ(std::vector<int>(r.tokens.begin() + 2, r.tokens.end()), after.tokens);
    o.forced.push_back(kImEndId);  // a forced stop token still stops
    o.stop.add(kImEndId);
    EXPECT_EQ(run(o).reason, GenerationResult::StopToken);
    EXPECT_EQ(run(o).text, "ok");
}

TEST(Generator, RespectsMaxNewTokens) {
    GenerationResult r = run(greedy(3));
    EXPECT_EQ(r.tokens.size(), 3u);
    EXPECT_EQ(r.reason, GenerationResult::MaxTokens);
    ModelState state = model().newState();
    GenerationResult none = generate(model(), state, {1, 2}, greedy(0), &tokenizer());
    EXPECT_TRUE(none.tokens.empty());
    EXPECT_EQ(state.position(), 2);  // the prompt was still read
    EXPECT_THROW(generate(model(), state, {}, greedy(3), &tokenizer()), std::invalid_argument);
}

TEST(Generator, CallbackAndFlagCancel) {
    int calls = 0;
    GenerationResult r = run(greedy(8), [&](int, const std::string&) { return ++calls < 2; });
    EXPECT_EQ(r.reason, GenerationResult::Cancelled);
    EXPECT_EQ(r.tokens.size(), 2u);

    calls = 0;
    std::atomic<bool> cancel{false};
    GenerationOptions o = greedy(8);
    o.cancel = &cancel;
    ModelState state = model().newState();
    r = generate(model(), state, {5}, o, &tokenizer(), [&](int, const std::string&) {
        cancel = ++calls == 3;
        return true;
    });
    EXPECT_EQ(r.reason, GenerationResult::Cancelled);
    EXPECT_EQ(r.tokens.size(), 3u);
    EXPECT_EQ(state.position(), 1 + 2);  // the prompt and every token but the last
}

TEST(Generator, StreamedPiecesAreWholeCharactersAndMakeTheText) {
    GenerationOptions o = greedy(24);
    o.sampling.temperature = 1.f;  // random bytes: many invalid or split UTF-8 sequences
    o.sampling.seed = 1;
    std::string pieces;
    std::vector<int> seen;
    GenerationResult r = run(o, [&](int token, const std::string& piece) {
        EXPECT_TRUE(text::isValidUtf8(piece)) << "token " << token;
        seen.push_back(token);
        pieces += piece;
        return true;
    });
    EXPECT_EQ(seen, r.tokens);
    EXPECT_EQ(pieces, r.text);
    EXPECT_EQ(r.text, streamed(r.tokens));
    EXPECT_GE(r.prefillSeconds, 0);
    EXPECT_GT(r.decodeSeconds, 0);
}

TEST(ChatSession, SecondTurnFeedsOnlyNewTokensAndRepliesAsAFreshRead) {
    ChatSessionOptions options;
    options.generation = greedy(6);
    ChatSession chat(chatModel(), tokenizer(), options);
    ChatReply first = chat.send("hi");
    EXPECT_TRUE(first.fromScratch);
    int before = chat.state().position();
    ChatReply second = chat.send("tell me more");
    EXPECT_FALSE(second.fromScratch) << "first reply: " << chat.messages()[1].content;
    // Only the new text is read: "<|im_end|>" closing the reply, the user turn, the generation prompt.
    std::string fresh =
        "<|im_end|>\n<|im_start|>user\ntell me more<|im_end|>\n<|im_start|>assistant\n<think>\n\n</think>\n\n";
    if (first.generation.reason != GenerationResult::StopToken)
        fresh = tokenizer().decode({first.generation.tokens.back()}) + fresh;
    EXPECT_EQ(second.promptTokens(), int(tokenizer().encode(fresh).size()));
    EXPECT_EQ(chat.state().position(), before + second.promptTokens() + int(second.generation.tokens.size()) - 1);

    ChatSession again(chatModel(), tokenizer(), options);
    again.append(chat.messages()[0]);
    again.append(chat.messages()[1]);
    ChatReply reread = again.send("tell me more");
    EXPECT_TRUE(reread.fromScratch);
    EXPECT_EQ(reread.generation.tokens, second.generation.tokens);
    EXPECT_EQ(reread.text, second.text);
    ASSERT_EQ(chat.messages().size(), 4u);
    EXPECT_EQ(chat.messages()[3].role, "assistant");
}

TEST(ChatSession, OfficialHistoryRereadsFromScratch) {
    // The official template drops the empty <think> block of the first reply, so the model must re-read.
    ChatSessionOptions options;
    options.generation = greedy(4);
    options.keepAllReasoning = false;
    ChatSession chat(model(), tokenizer(), options);
    chat.send("hi");
    ChatReply second = chat.send("and?");
    EXPECT_TRUE(second.fromScratch);
    EXPECT_EQ(chat.state().position(), second.promptTokens() + int(second.generation.tokens.size()) - 1);
}

TEST(ChatSession, LoadsAHostAndReportsMissingOrBrokenFiles) {
    fs::path dir = tempDir("host");
    std::string err = text::testing::errorOf([&] { loadChatHost((dir / "nope").string()); });
    EXPECT_NE(err.find((dir / "nope").string() + ": error: no such directory"), std::string::npos) << err;

    model().save(dir.string());
    err = text::testing::errorOf([&] { loadChatHost(dir.string()); });
    EXPECT_NE(err.find((dir / "tokenizer.json").string()), std::string::npos) << err;
    EXPECT_NE(err.find("not found; the host needs its tokenizer.json"), std::string::npos) << err;

    writeFile(dir / "tokenizer.json", tokenizerJson().dump());
    ChatHost host = loadChatHost(dir.string());
    ModelState a = host.model->newState(), b = model().newState();
    EXPECT_EQ(host.model->forward({1, 2, 3}, a), model().forward({1, 2, 3}, b));

    std::string weights = readFile(dir / "model.safetensors");
    writeFile(dir / "model.safetensors", weights.substr(0, weights.size() / 2));
    err = text::testing::errorOf([&] { loadChatHost(dir.string()); });
    EXPECT_NE(err.find("model.safetensors"), std::string::npos) << err;
    fs::remove_all(dir);
}

TEST(ChatSession, CliAnswersAPrompt) {
    if (!fs::exists(QGPU_CLI_PATH)) GTEST_SKIP() << "qgpu is not built";
    fs::path dir = tempDir("cli");
    model().save(dir.string());
    writeFile(dir / "tokenizer.json", tokenizerJson().dump());
    std::string cmd = std::string(QGPU_CLI_PATH) + " chat --host " + dir.string() + " --prompt hi --max-tokens 5";
    ASSERT_EQ(std::system((cmd + " >" + (dir / "out").string() + " 2>" + (dir / "err").string()).c_str()), 0)
        << readFile(dir / "err");
    std::string err = readFile(dir / "err");
    EXPECT_NE(err.find("tokens/s"), std::string::npos) << err;
    std::cout << "qgpu chat on the tiny model: " << err;

    fs::remove(dir / "tokenizer.json");
    int rc = std::system((cmd + " >/dev/null 2>" + (dir / "err").string()).c_str());
    EXPECT_EQ(WEXITSTATUS(rc), 1);
    EXPECT_NE(readFile(dir / "err").find((dir / "tokenizer.json").string()), std::string::npos);
    fs::remove_all(dir);
}

TEST(ChatSession, AHostTokenizerWithoutTheChatSpecialsIsRefused) {
    fs::path dir = tempDir("nospecials");
    model().save(dir.string());
    text::testing::TokenizerSpec bytesOnly;
    writeFile(dir / "tokenizer.json", text::testing::tokenizerJson(bytesOnly).dump());
    std::string err = text::testing::errorOf([&] { loadChatHost(dir.string()); });
    EXPECT_NE(err.find((dir / "tokenizer.json").string() + ": error: has no special token <|im_start|>"),
              std::string::npos)
        << err;
    fs::remove_all(dir);
}

TEST(ChatSession, TooLongAMessageIsRefusedBeforeTheModelReadsItAndTheChatGoesOn) {
    ChatSessionOptions options;
    options.generation = greedy(2);
    options.maxContextTokens = 300;
    ChatSession chat(model(), tokenizer(), options);
    std::string err = text::testing::errorOf([&] { chat.send(std::string(400, 'x')); });
    EXPECT_NE(err.find("more than chat's limit of 300: send a shorter message or start a new conversation"),
              std::string::npos)
        << err;
    EXPECT_TRUE(chat.messages().empty());
    EXPECT_EQ(chat.state().position(), 0) << "nothing was read";
    ChatReply first = chat.send("hi");
    EXPECT_TRUE(first.fromScratch);
    EXPECT_FALSE(first.generation.tokens.empty());

    err = text::testing::errorOf([&] { chat.send(std::string(ChatSession::kMaxNewBytes + 1, 'y')); });
    EXPECT_NE(err.find("bytes; chat reads at most 1048576 at a time"), std::string::npos) << err;
    EXPECT_EQ(chat.messages().size(), 2u) << "the first exchange is kept";
    EXPECT_FALSE(chat.send("ok").fromScratch) << "and the state goes on from it";
}

TEST(Generator, ALongPromptIsReadInPiecesAsInOnePass) {
    std::vector<int> prompt;
    for (int i = 0; i < 1300; ++i) prompt.push_back((i * 37 + 11) % 256);
    ModelState whole = model().newState(), pieces = model().newState();
    std::vector<float> logits = model().forward(prompt, whole);
    GenerationResult r = generate(model(), pieces, prompt, greedy(1), nullptr);
    EXPECT_EQ(r.tokens.at(0), int(std::max_element(logits.begin(), logits.end()) - logits.begin()));
    std::vector<float> a = model().forward({7}, whole), b = model().forward({7}, pieces);
    float range = *std::max_element(a.begin(), a.end()) - *std::min_element(a.begin(), a.end());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_NEAR(a[i], b[i], 1e-5f * range) << i;
}
