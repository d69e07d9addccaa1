#include <gtest/gtest.h>

#include <random>

#include "qgpu/runtime/text/PreTokenizer.h"
#include "qgpu/runtime/text/Unicode.h"

using namespace qgpu::text;

namespace {

using Pieces = std::vector<std::string>;

Pieces split(std::string_view text, SplitDialect d = SplitDialect::Qwen2) {
    Pieces out;
    for (std::string_view p : preTokenize(text, d)) out.emplace_back(p);
    return out;
}

}  // namespace

TEST(Unicode, ClassifiesLettersNumbersMarksAndSpaces) {
    EXPECT_TRUE(isLetter(U'a'));
    EXPECT_TRUE(isLetter(U'Z'));
    EXPECT_TRUE(isLetter(U'é'));
    EXPECT_TRUE(isLetter(U'Ж'));
    EXPECT_TRUE(isLetter(U'中'));
    EXPECT_TRUE(isLetter(U'あ'));
    EXPECT_TRUE(isLetter(U'한'));
    EXPECT_TRUE(isLetter(0x20000));   // CJK extension B
    EXPECT_FALSE(isLetter(0x1F642));  // emoji
    EXPECT_FALSE(isLetter(U'，'));
    EXPECT_FALSE(isLetter(U'_'));
    EXPECT_TRUE(isNumber(U'7'));
    EXPECT_TRUE(isNumber(0x663));  // ARABIC-INDIC DIGIT THREE
    EXPECT_TRUE(isNumber(U'Ⅻ'));   // letter number
    EXPECT_TRUE(isNumber(U'²'));
    EXPECT_TRUE(isMark(0x301));  // COMBINING ACUTE ACCENT
    EXPECT_TRUE(isWhitespace(U'\t'));
    EXPECT_TRUE(isWhitespace(0x3000));
    EXPECT_TRUE(isWhitespace(0xA0));
    EXPECT_FALSE(isWhitespace(0x200B));  // zero width space is not White_Space
    EXPECT_EQ(charClass(0x10FFFF), CharClass::Other);
}

TEST(Unicode, DecodesUtf8AndRejectsInvalidForms) {
    EXPECT_EQ(decodeUtf8("\xC3\xA9", 0).cp, U'é');
    EXPECT_EQ(decodeUtf8("\xF0\x9F\x99\x82", 0).length, 4);
    EXPECT_EQ(decodeUtf8("\xF0\x9F\x99", 0).status, Utf8Char::Incomplete);
    EXPECT_EQ(decodeUtf8("\xC0\xAF", 0).status, Utf8Char::Invalid);      // overlong
    EXPECT_EQ(decodeUtf8("\xED\xA0\x80", 0).status, Utf8Char::Invalid);  // surrogate
    EXPECT_EQ(decodeUtf8("\xF4\x90\x80\x80", 0).status, Utf8Char::Invalid);
    Utf8Char cut = decodeUtf8("\xE4\xB8x", 0);  // two good bytes then a non-continuation
    EXPECT_EQ(cut.status, Utf8Char::Invalid);
    EXPECT_EQ(cut.length, 2);
    std::string s;
    for (char32_t cp : {U'a', U'é', U'中', char32_t(0x1F642)}) appendUtf8(s, cp);
    EXPECT_EQ(s, "aé中🙂");
    EXPECT_TRUE(isValidUtf8(s));
    EXPECT_FALSE(isValidUtf8("a\xFF"));
}

TEST(PreTokenizer, SplitsDigitsOneByOne) {
    EXPECT_EQ(split("12345"), (Pieces{"1", "2", "3", "4", "5"}));
    EXPECT_EQ(split("abc 2024!"), (Pieces{"abc", " ", "2", "0", "2", "4", "!"}));
    EXPECT_EQ(split("x٣٤"), (Pieces{"x", "٣", "٤"}));
}

TEST(PreTokenizer, SplitsContractionsCaseInsensitively) {
    EXPECT_EQ(split("don't"), (Pieces{"don", "'t"}));
    EXPECT_EQ(split("I'M"), (Pieces{"I", "'M"}));
    EXPECT_EQ(split("we'll they'RE you've he'd"), (Pieces{"we", "'ll", " they", "'RE", " you", "'ve", " he", "'d"}));
    EXPECT_EQ(split("'hello"), (Pieces{"'hello"}));  // not a contraction: the quote leads the word
    EXPECT_EQ(split("it's."), (Pieces{"it", "'s", "."}));
}

TEST(PreTokenizer, KeepsTheLastSpaceOfARunForTheNextWord) {
    EXPECT_EQ(split("a   b"), (Pieces{"a", "  ", " b"}));
    EXPECT_EQ(split("a b"), (Pieces{"a", " b"}));
    EXPECT_EQ(split("a  "), (Pieces{"a", "  "}));  // trailing run stays whole
    EXPECT_EQ(split("\t\tx"), (Pieces{"\t", "\tx"}));
    EXPECT_EQ(split("x  ,"), (Pieces{"x", " ", " ,"}));
    EXPECT_EQ(split("hello, world!"), (Pieces{"hello", ",", " world", "!"}));
}

TEST(PreTokenizer, GroupsNewlines) {
    EXPECT_EQ(split("a\n\nb"), (Pieces{"a", "\n\n", "b"}));
    EXPECT_EQ(split("a \n b"), (Pieces{"a", " \n", " b"}));
    EXPECT_EQ(split("a\r\n  b"), (Pieces{"a", "\r\n", " ", " b"}));
    EXPECT_EQ(split("ok!\n\nnext"), (Pieces{"ok", "!\n\n", "next"}));
    EXPECT_EQ(split("x\n"), (Pieces{"x", "\n"}));
    EXPECT_EQ(split("\nword"), (Pieces{"\n", "word"}));  // newline is never a word's prefix
}

TEST(PreTokenizer, TreatsCjkAsLettersAndEmojiAsPunctuation) {
    EXPECT_EQ(split("你好世界"), (Pieces{"你好世界"}));
    EXPECT_EQ(split("说 你好，世界"), (Pieces{"说", " 你好", "，世界"}));
    EXPECT_EQ(split("hi 🙂🙂 there"), (Pieces{"hi", " 🙂🙂", " there"}));
    EXPECT_EQ(split("🙂x"), (Pieces{"🙂x"}));  // one non-letter may lead a word
    EXPECT_EQ(split("日本語で123"), (Pieces{"日本語で", "1", "2", "3"}));
}

TEST(PreTokenizer, Qwen35KeepsCombiningMarksInWords) {
    std::string composed = "cafe\xCC\x81s";  // "cafe" + COMBINING ACUTE + "s"
    EXPECT_EQ(split(composed, SplitDialect::Qwen2), (Pieces{"cafe", "\xCC\x81s"}));
    EXPECT_EQ(split(composed, SplitDialect::Qwen35), (Pieces{composed}));
    EXPECT_EQ(split("a \xCC\x81!", SplitDialect::Qwen2), (Pieces{"a", " \xCC\x81!"}));
    EXPECT_EQ(split("a \xCC\x81!", SplitDialect::Qwen35), (Pieces{"a", " \xCC\x81", "!"}));
}

TEST(PreTokenizer, CoversAnyBytesWithoutGaps) {
    std::mt19937 rng(11);
    const char alphabet[] = {'a', 'Z', '1', ' ', '\n', '\r', '\t', '\'', 's', '!', '\xC3', '\xA9', '\xFF', '\xE4'};
    for (int round = 0; round < 500; ++round) {
        std::string text;
        int n = int(rng() % 24);
        for (int i = 0; i < n; ++i) text += alphabet[rng() % sizeof alphabet];
        for (SplitDialect d : {SplitDialect::Qwen2, SplitDialect::Qwen35}) {
            std::string joined;
            for (const std::string& p : split(text, d)) {
                EXPECT_FALSE(p.empty());
                joined += p;
            }
            EXPECT_EQ(joined, text);
        }
    }
}
