#include <gtest/gtest.h>

#include <random>

#include "TextTestUtil.h"
#include "qgpu/runtime/text/Tokenizer.h"
#include "qgpu/runtime/text/Unicode.h"

using namespace qgpu::text;
using namespace qgpu::text::testing;

// The expectations are what Python's unicodedata.normalize("NFC", ...) gives (Unicode 14.0).
TEST(Nfc, ComposesDecomposedCharacters) {
    EXPECT_EQ(toNfc("e\u0301"), "\u00E9");
    EXPECT_EQ(toNfc("cafe\u0301 A\u030A\u0301"), "caf\u00E9 \u01FA");  // Å then acute: Ǻ
    EXPECT_EQ(toNfc("\u304B\u3099"), "\u304C");                        // か + voiced mark: が
    EXPECT_EQ(toNfc("\u00E9"), "\u00E9");
    EXPECT_EQ(toNfc("\u0301e"), "\u0301e");  // a mark with nothing before it stays
    EXPECT_EQ(toNfc(""), "");
}

TEST(Nfc, ReplacesSingletons) {
    EXPECT_EQ(toNfc("\u212B"), "\u00C5");  // ANGSTROM SIGN -> A WITH RING ABOVE
    EXPECT_EQ(toNfc("\u2126"), "\u03A9");  // OHM SIGN -> OMEGA
    EXPECT_EQ(toNfc("\u2000"), "\u2002");  // EN QUAD -> EN SPACE
    EXPECT_EQ(toNfc("\uF900"), "\u8C48");  // a CJK compatibility ideograph
}

TEST(Nfc, LeavesCompositionExclusionsDecomposed) {
    EXPECT_EQ(toNfc("\u0958"), "\u0915\u093C");        // DEVANAGARI LETTER QA
    EXPECT_EQ(toNfc("\u0915\u093C"), "\u0915\u093C");  // and never composes it back
    EXPECT_EQ(toNfc("\u0344"), "\u0308\u0301");        // a non-starter decomposition
}

TEST(Nfc, ComposesHangulJamo) {
    EXPECT_EQ(toNfc("\u1100\u1161"), "\uAC00");                          // L V -> LV
    EXPECT_EQ(toNfc("\u1100\u1161\u11A8"), "\uAC01");                    // L V T -> LVT
    EXPECT_EQ(toNfc("\uAC00\u11A8"), "\uAC01");                          // LV T -> LVT
    EXPECT_EQ(toNfc("\uAC01\u11A8"), "\uAC01\u11A8");                    // LVT takes no second T
    EXPECT_EQ(toNfc("\u1100\u1161\u0301\u11A8"), "\uAC00\u0301\u11A8");  // a mark between blocks
    EXPECT_EQ(toNfc("\u1113\u1161"), "\u1113\u1161");                    // an old L has no syllable
}

TEST(Nfc, OrdersMarksByCombiningClassBeforeComposing) {
    EXPECT_EQ(toNfc("a\u0301\u0323"), "\u1EA1\u0301");  // dot below (220) first, then it composes with a
    EXPECT_EQ(toNfc("q\u0307\u0323"), "q\u0323\u0307");
    EXPECT_EQ(toNfc("\u03B1\u0345\u0313\u0300"), "\u1F82");  // ypogegrammeni (240) moves last
    EXPECT_EQ(toNfc("a\u0301\u0301"), "\u00E1\u0301");       // the second acute is blocked by the first
    EXPECT_EQ(combiningClass(0x0301), 230);
    EXPECT_EQ(combiningClass(0x0323), 220);
    EXPECT_EQ(combiningClass('a'), 0);
}

TEST(Nfc, KeepsBytesThatAreNotUtf8) {
    EXPECT_EQ(toNfc("e\xFF\u0301"), "e\xFF\u0301");  // nothing composes across the byte
    EXPECT_EQ(toNfc("e\u0301\xFF\xC3"), "\u00E9\xFF\xC3");
}

TEST(Nfc, QuickCheckPassesOnlyTextNfcCannotChange) {
    for (const char* text : {"hello, world", "\u00E9t\u00E9", "\u4E2D\u6587", "\uAC01", "\U0001F44D\U0001F3FD"})
        EXPECT_TRUE(nfcQuickCheck(text)) << text;
    for (const char* text : {"e\u0301", "\u212B", "\u1161", "x\u0323", "\u0958"})
        EXPECT_FALSE(nfcQuickCheck(text)) << text;
}

TEST(Nfc, IsIdempotent) {
    std::mt19937 rng(7);
    const char32_t pool[] = {'a',    'e',    'A',    0x301, 0x323, 0x345, 0x313,  0x3B1,  0x1100, 0x1161,
                             0x11A8, 0xAC00, 0x212B, 0x958, 0x93C, 0x915, 0x304B, 0x3099, 0x344,  0xC5};
    for (int round = 0; round < 500; ++round) {
        std::string text;
        for (int i = int(rng() % 12); i > 0; --i) appendUtf8(text, pool[rng() % std::size(pool)]);
        std::string once = toNfc(text);
        ASSERT_EQ(toNfc(once), once) << "round " << round;
    }
}

namespace {

Tokenizer nfcTokenizer(bool declareNfc) {
    TokenizerSpec s;
    s.tokens = {"\xC3\xA9", "\xEA\xB0", "\xEA\xB0\x81"};  // é, and 각 in two merges
    s.merges = {{"\xC3", "\xA9"}, {"\xEA", "\xB0"}, {"\xEA\xB0", "\x81"}};
    s.added = {{300, "<|im_end|>", true}};
    nlohmann::json j = tokenizerJson(s);
    if (!declareNfc) j.erase("normalizer");
    return Tokenizer::fromJson(j.dump());
}

}  // namespace

TEST(Tokenizer, NormalizesToNfcWhenTheFileDeclaresIt) {
    Tokenizer t = nfcTokenizer(true);
    int eAcute = t.tokenId("\u00E9");
    EXPECT_EQ(t.encode("e\u0301"), std::vector<int>{eAcute});
    EXPECT_EQ(t.encode("\u00E9"), std::vector<int>{eAcute});
    EXPECT_EQ(t.decode(t.encode("cafe\u0301")), "caf\u00E9");
    EXPECT_EQ(t.encode("\u1100\u1161\u11A8"), std::vector<int>{t.tokenId("\uAC01")});  // jamo compose
    EXPECT_EQ(t.decode(t.encode("\u212B")), "\u00C5");
    EXPECT_EQ(t.decode(t.encode("\u0958")), "\u0915\u093C");  // an exclusion stays decomposed
    // Added tokens are cut out first: a mark after one has nothing to compose with.
    EXPECT_EQ(t.encode("e<|im_end|>\u0301"), (std::vector<int>{'e', 300, 0xCC, 0x81}));
}

TEST(Tokenizer, LeavesTextAsItIsWithoutANormalizer) {
    Tokenizer t = nfcTokenizer(false);
    EXPECT_EQ(t.encode("e\u0301"), (std::vector<int>{'e', 0xCC, 0x81}));
    EXPECT_EQ(t.decode(t.encode("\u212B")), "\u212B");
}

TEST(Tokenizer, AcceptsNfcInASequence) {
    TokenizerSpec s;
    nlohmann::json j = tokenizerJson(s);
    j["normalizer"] = {{"type", "Sequence"}, {"normalizers", {{{"type", "NFC"}}}}};
    Tokenizer t = Tokenizer::fromJson(j.dump());
    EXPECT_EQ(t.decode(t.encode("e\u0301")), "\u00E9");
}
