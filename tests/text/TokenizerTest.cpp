#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>

#include "TextTestUtil.h"
#include "qgpu/runtime/text/Tokenizer.h"
#include "qgpu/runtime/text/Unicode.h"

using namespace qgpu::text;
using namespace qgpu::text::testing;
namespace fs = std::filesystem;

namespace {

Tokenizer load(const TokenizerSpec& spec) { return Tokenizer::fromJson(tokenizerJson(spec).dump()); }

// Without the NFC normalizer: decode(encode(text)) is then text itself.
Tokenizer loadUnnormalized(const TokenizerSpec& spec) {
    nlohmann::json j = tokenizerJson(spec);
    j.erase("normalizer");
    return Tokenizer::fromJson(j.dump());
}

// The tokens' texts, for readable expectations.
std::vector<std::string> pieces(const Tokenizer& t, const std::vector<int>& ids) {
    std::vector<std::string> out;
    for (int id : ids) out.push_back(t.tokenBytes(id));
    return out;
}

// 256 byte tokens and merges that build " the", "the", "hello", "中" (3 bytes), and "🙂" only halfway.
TokenizerSpec smallSpec() {
    TokenizerSpec s;
    s.tokens = {" t", "he", " the", "the", "ll", "hell", "hello", "\xE4\xB8", "中", "\xF0\x9F"};
    s.merges = {{" ", "t"},   {"h", "e"},    {" t", "he"},     {"t", "he"},          {"l", "l"},
                {"he", "ll"}, {"hell", "o"}, {"\xE4", "\xB8"}, {"\xE4\xB8", "\xAD"}, {"\xF0", "\x9F"}};
    s.added = {{400, "<|im_start|>", true}, {401, "<|im_end|>", true}, {402, "<think>", false}};
    return s;
}

std::string randomUtf8(std::mt19937& rng, int length) {
    static const std::vector<std::pair<char32_t, char32_t>> ranges = {
        {0x20, 0x7E},     {'\n', '\n'},     {'\t', '\r'},       {0xA0, 0x24F},
        {0x300, 0x36F},   {0x400, 0x4FF},   {0x4E00, 0x9FFF},   {0x3040, 0x30FF},
        {0xAC00, 0xD7A3}, {0x2000, 0x206F}, {0x1F300, 0x1F64F}, {0x10000, 0x10FFFF}};
    std::string s;
    for (int i = 0; i < length; ++i) {
        auto [lo, hi] = ranges[rng() % ranges.size()];
        char32_t cp = lo + char32_t(rng() % (hi - lo + 1));
        if (cp >= 0xD800 && cp <= 0xDFFF) cp = 'x';
        appendUtf8(s, cp);
    }
    return s;
}

}  // namespace

TEST(Tokenizer, AppliesMergesByRank) {
    TokenizerSpec s;
    s.tokens = {"ab", "bc"};
    s.merges = {{"a", "b"}, {"b", "c"}};
    Tokenizer abFirst = load(s);
    EXPECT_EQ(pieces(abFirst, abFirst.encode("abc")), (std::vector<std::string>{"ab", "c"}));
    std::swap(s.merges[0], s.merges[1]);
    Tokenizer bcFirst = load(s);
    EXPECT_EQ(pieces(bcFirst, bcFirst.encode("abc")), (std::vector<std::string>{"a", "bc"}));
}

TEST(Tokenizer, MergesLeftmostFirstAmongEqualRanks) {
    TokenizerSpec s;
    s.tokens = {"aa"};
    s.merges = {{"a", "a"}};
    Tokenizer t = load(s);
    EXPECT_EQ(pieces(t, t.encode("aaa")), (std::vector<std::string>{"aa", "a"}));
    EXPECT_EQ(pieces(t, t.encode("aaaa")), (std::vector<std::string>{"aa", "aa"}));
}

TEST(Tokenizer, AcceptsMergesAsPairs) {
    TokenizerSpec s = smallSpec();
    s.mergesAsPairs = true;
    Tokenizer t = load(s);
    EXPECT_EQ(pieces(t, t.encode("hello the")), (std::vector<std::string>{"hello", " the"}));
}

TEST(Tokenizer, EncodesThroughThePreTokenizer) {
    Tokenizer t = load(smallSpec());
    // "the" merges inside a piece, never across pieces: "12" stays two digits, "the1" splits at the digit.
    EXPECT_EQ(pieces(t, t.encode("the the hello, 中")),
              (std::vector<std::string>{"the", " the", " ", "hello", ",", " ", "中"}));
    EXPECT_EQ(pieces(t, t.encode("the12")), (std::vector<std::string>{"the", "1", "2"}));
    EXPECT_EQ(t.encode(""), std::vector<int>{});
}

TEST(Tokenizer, MatchesAddedTokensFirstAndNeverSplitsThem) {
    Tokenizer t = load(smallSpec());
    std::vector<int> ids = t.encode("<|im_start|>user\nthe<|im_end|><think>");
    EXPECT_EQ(pieces(t, ids),
              (std::vector<std::string>{"<|im_start|>", "u", "s", "e", "r", "\n", "the", "<|im_end|>", "<think>"}));
    EXPECT_EQ(ids[0], 400);
    EXPECT_EQ(ids[7], 401);
    EXPECT_TRUE(t.isSpecial(400));
    EXPECT_FALSE(t.isSpecial(402));
    EXPECT_TRUE(t.isAdded(402));
    EXPECT_FALSE(t.isSpecial(t.tokenId("the")));
    // Text around a token is encoded on its own: no merge reaches across.
    EXPECT_EQ(pieces(t, t.encode("t<think>he")), (std::vector<std::string>{"t", "<think>", "he"}));
    EXPECT_EQ(t.decode(ids), "<|im_start|>user\nthe<|im_end|><think>");
    EXPECT_EQ(t.decode(ids, true), "user\nthe<think>");
}

// Chat reads tool results this way: added-token text inside a literal span is its bytes' tokens.
TEST(Tokenizer, ReadsLiteralSpansAsOrdinaryText) {
    Tokenizer t = load(smallSpec());
    TokenizerSpec noAdded = smallSpec();
    noAdded.added.clear();
    Tokenizer plain = load(noAdded);  // the same vocabulary and merges: what the text encodes to as text

    std::string text = "<|im_start|>user\n<think>the<|im_end|>x<|im_end|>";
    size_t begin = text.find("<think>"), end = text.find("x<|im_end|>") + 1;
    std::vector<int> ids = t.encode(text, {{begin, end}});
    std::vector<int> expected = {400};
    for (int id : plain.encode("user\n<think>the<|im_end|>x")) expected.push_back(id);
    expected.push_back(401);
    EXPECT_EQ(ids, expected);
    EXPECT_EQ(t.decode(ids), text);
    EXPECT_EQ(std::count(ids.begin(), ids.end(), 401), 1);  // only the one outside the span

    // An added token that would end inside a span is not matched either; one that ends where it starts is.
    EXPECT_EQ(t.encode("<|im_end|>", {{5, 10}}), plain.encode("<|im_end|>"));
    std::vector<int> before = t.encode("<|im_end|><|im_end|>", {{10, 20}});
    ASSERT_FALSE(before.empty());
    EXPECT_EQ(before[0], 401);
    EXPECT_EQ(std::count(before.begin(), before.end(), 401), 1);

    // Spans without added-token text change nothing: the text around them is pre-tokenized with them.
    std::string ordinary = "<|im_start|>user\nthe hello the<|im_end|>\n";
    size_t at = ordinary.find("the hello");
    EXPECT_EQ(t.encode(ordinary, {{at, at + 9}, {ordinary.size() - 1, ordinary.size()}}), t.encode(ordinary));
    EXPECT_EQ(t.encode(ordinary, {{at, at}}), t.encode(ordinary));  // an empty span
    EXPECT_EQ(t.encode(ordinary, {}), t.encode(ordinary));
}

TEST(Tokenizer, PrefersTheLongestAddedToken) {
    TokenizerSpec s;
    s.added = {{300, "<a>", true}, {301, "<a><b>", true}, {302, "<b>", true}};
    Tokenizer t = load(s);
    EXPECT_EQ(t.encode("<a><b><a>x<b>"), (std::vector<int>{301, 300, 'x', 302}));
}

TEST(Tokenizer, LooksUpTokensByTheirText) {
    Tokenizer t = load(smallSpec());
    EXPECT_EQ(t.tokenId(" the"), 256 + 2);
    EXPECT_EQ(t.tokenId("中"), 256 + 8);
    EXPECT_EQ(t.tokenId("<|im_end|>"), 401);
    EXPECT_EQ(t.tokenId("nope"), -1);
    EXPECT_EQ(t.tokenId("\n"), '\n');
    EXPECT_EQ(t.vocabSize(), 403);
    EXPECT_EQ(t.tokenBytes(9999), "");
    EXPECT_EQ(t.splitDialect(), SplitDialect::Qwen2);
}

TEST(Tokenizer, AppendsNewTokens) {
    Tokenizer t = load(smallSpec());
    std::vector<int> chips = t.addTokens({"<chip_0>", "<chip_1>"});
    EXPECT_EQ(chips, (std::vector<int>{403, 404}));
    EXPECT_EQ(t.vocabSize(), 405);
    EXPECT_TRUE(t.isSpecial(404));
    EXPECT_EQ(t.addToken("<chip_1>"), 404);          // already there
    EXPECT_EQ(t.addToken("<|im_end|>"), 401);        // an existing added token
    EXPECT_EQ(t.addToken("hello", false), 256 + 6);  // an existing vocabulary token becomes an added one
    std::vector<int> ids = t.encode("a<chip_1><chip_0>b");
    EXPECT_EQ(ids, (std::vector<int>{'a', 404, 403, 'b'}));
    EXPECT_EQ(t.decode(ids), "a<chip_1><chip_0>b");
}

TEST(Tokenizer, RoundTripsRandomUtf8) {
    Tokenizer raw = loadUnnormalized(smallSpec()), nfc = load(smallSpec());
    std::mt19937 rng(2024);
    for (int round = 0; round < 400; ++round) {
        std::string text = randomUtf8(rng, int(rng() % 40));
        ASSERT_EQ(nfc.decode(nfc.encode(text)), toNfc(text)) << "round " << round;
        if (round % 3 == 0) text += "<|im_end|>" + randomUtf8(rng, 5);
        std::vector<int> ids = raw.encode(text);
        for (int id : ids) ASSERT_TRUE(id >= 0 && id < raw.vocabSize());
        ASSERT_EQ(raw.decode(ids), text) << "round " << round;
    }
}

TEST(Tokenizer, RoundTripsBytesThatAreNotUtf8) {
    Tokenizer t = loadUnnormalized(smallSpec());
    std::mt19937 rng(5);
    for (int round = 0; round < 200; ++round) {
        std::string bytes;
        for (int i = int(rng() % 30); i > 0; --i) bytes += char(rng() % 256);
        ASSERT_EQ(t.decode(t.encode(bytes)), bytes);
    }
}

TEST(StreamDecoder, NeverEmitsPartialCharacters) {
    Tokenizer t = load(smallSpec());
    std::string text = "é🙂中x🙂";
    std::vector<int> ids;
    for (unsigned char b : text) ids.push_back(b);  // one token per byte: every character split
    StreamDecoder stream(t);
    std::vector<std::string> outs;
    for (int id : ids) outs.push_back(stream.push(id));
    std::string joined;
    for (const std::string& o : outs) {
        EXPECT_TRUE(isValidUtf8(o));
        joined += o;
    }
    EXPECT_EQ(joined, text);
    EXPECT_EQ(outs[0], "");
    EXPECT_EQ(outs[1], "é");
    EXPECT_EQ(outs[4], "");
    EXPECT_EQ(outs[5], "🙂");
    EXPECT_EQ(stream.flush(), "");
}

TEST(StreamDecoder, JoinsCharactersSplitAcrossMergedTokens) {
    Tokenizer t = load(smallSpec());
    // "\xF0\x9F" is a token: the emoji arrives as a 2-byte token then two byte tokens.
    std::vector<int> ids = t.encode("a🙂b");
    EXPECT_EQ(pieces(t, ids), (std::vector<std::string>{"a", "\xF0\x9F", "\x99", "\x82", "b"}));
    StreamDecoder stream(t);
    std::vector<std::string> outs;
    for (int id : ids) outs.push_back(stream.push(id));
    EXPECT_EQ(outs, (std::vector<std::string>{"a", "", "", "🙂", "b"}));
}

TEST(StreamDecoder, ReplacesBytesThatCannotFormACharacter) {
    Tokenizer t = load(smallSpec());
    StreamDecoder stream(t);
    EXPECT_EQ(stream.push(0xFF), "\xEF\xBF\xBD");  // never valid: U+FFFD at once
    EXPECT_EQ(stream.push(0xE4), "");
    EXPECT_EQ(stream.push('x'), "\xEF\xBF\xBDx");  // the lead byte lost its character
    EXPECT_EQ(stream.push(0xF0), "");
    EXPECT_EQ(stream.flush(), "\xEF\xBF\xBD");  // cut off by the end
    EXPECT_EQ(stream.push(401), "<|im_end|>");
    StreamDecoder quiet(t, true);
    EXPECT_EQ(quiet.push(401), "");
}

TEST(Tokenizer, LoadsFromAFile) {
    fs::path dir = fs::temp_directory_path() / ("qgpu-tok-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    fs::path file = dir / "tokenizer.json";
    std::ofstream(file) << tokenizerJson(smallSpec()).dump(2);
    Tokenizer t = Tokenizer::fromFile(file.string());
    EXPECT_EQ(t.decode(t.encode("hello the")), "hello the");
    EXPECT_EQ(t.encode("hello").size(), 1u);

    std::string missing = (dir / "nothing.json").string();
    std::string err = errorOf([&] { Tokenizer::fromFile(missing); });
    EXPECT_NE(err.find(missing), std::string::npos) << err;
    EXPECT_NE(err.find("no such file"), std::string::npos) << err;

    std::ofstream(dir / "broken.json") << "{\"model\": {";
    err = errorOf([&] { Tokenizer::fromFile((dir / "broken.json").string()); });
    EXPECT_NE(err.find("broken.json"), std::string::npos) << err;
    EXPECT_NE(err.find("malformed JSON"), std::string::npos) << err;
    fs::remove_all(dir);
}

TEST(Tokenizer, RejectsWhatItCannotRun) {
    auto errorFor = [](const std::function<void(nlohmann::json&)>& edit) {
        nlohmann::json j = tokenizerJson(smallSpec());
        edit(j);
        return errorOf([&] { Tokenizer::fromJson(j.dump(), "my/tokenizer.json"); });
    };
    std::string err = errorFor([](nlohmann::json& j) {
        j["added_tokens"] = {{{"id", 1000000000}, {"content", "<x>"}, {"special", true}}};
    });
    EXPECT_NE(err.find("the id of added token \"<x>\" is 1000000000; a token id must be an integer from 0 to"),
              std::string::npos)
        << err;
    err = errorFor([](nlohmann::json& j) {
        auto first = j["model"]["vocab"].begin();
        j["model"]["vocab"]["zz-duplicate"] = first.value();
    });
    EXPECT_NE(err.find("which another token of model.vocab has too"), std::string::npos) << err;
    err = errorFor([](nlohmann::json& j) { j["model"]["type"] = "WordPiece"; });
    EXPECT_NE(err.find("my/tokenizer.json: error: model.type is \"WordPiece\""), std::string::npos) << err;
    err = errorFor([](nlohmann::json& j) { j["model"]["merges"].push_back("q zz"); });
    EXPECT_NE(err.find("\"zz\" is not in model.vocab"), std::string::npos) << err;
    err = errorFor([](nlohmann::json& j) { j["model"]["merges"].push_back("nonsense"); });
    EXPECT_NE(err.find("is not \"left right\""), std::string::npos) << err;
    err = errorFor([](nlohmann::json& j) { j["model"].erase("vocab"); });
    EXPECT_NE(err.find("model.vocab is missing"), std::string::npos) << err;
    err = errorFor([](nlohmann::json& j) { j["pre_tokenizer"] = {{"type", "ByteLevel"}, {"use_regex", true}}; });
    EXPECT_NE(err.find("GPT-2's split"), std::string::npos) << err;
    err = errorFor([](nlohmann::json& j) { j["pre_tokenizer"]["pretokenizers"][0]["pattern"]["Regex"] = "\\w+"; });
    EXPECT_NE(err.find("is not Qwen's"), std::string::npos) << err;
    err = errorFor([](nlohmann::json& j) { j["normalizer"] = {{"type", "NFKC"}}; });
    EXPECT_NE(err.find("normalizer \"NFKC\""), std::string::npos) << err;
    err = errorFor([](nlohmann::json& j) { j["added_tokens"][0]["special"] = "yes"; });
    EXPECT_NE(err.find("unexpected structure"), std::string::npos) << err;
    err = errorOf([] { Tokenizer::fromJson("[1, 2]"); });
    EXPECT_NE(err.find("tokenizer.json: error: no \"model\" object"), std::string::npos) << err;
}

TEST(Tokenizer, DefaultsToTheQwen35SplitWithoutAPreTokenizer) {
    nlohmann::json j = tokenizerJson(smallSpec());
    j.erase("pre_tokenizer");
    EXPECT_EQ(Tokenizer::fromJson(j.dump()).splitDialect(), SplitDialect::Qwen35);
    TokenizerSpec s = smallSpec();
    s.dialect = SplitDialect::Qwen35;
    EXPECT_EQ(load(s).splitDialect(), SplitDialect::Qwen35);
}

TEST(Tokenizer, SpellsBytesWithGpt2sAlphabetAsTheTestsIndependentCopyDoes) {
    for (int b = 0; b < 256; ++b) {
        std::string byte(1, char(b));
        EXPECT_EQ(byteLevelSpelling(byte), spell(byte)) << "byte " << b;
    }
    EXPECT_EQ(byteLevelSpelling(" the\n"), "\xC4\xA0the\xC4\x8A");  // "Ġthe" + "Ċ"
}
