// Byte-level BPE as Hugging Face tokenizers runs it for Qwen models, loaded from tokenizer.json:
// added tokens are cut out of the text first (longest match, never split), the text between them is
// normalized (NFC, when the file declares it), split by Qwen's pre-tokenizer (PreTokenizer.h), and each
// piece's bytes are mapped to GPT-2's printable alphabet and merged by rank. Torch-free.
//
// Supported tokenizer.json: model.type "BPE" with vocab, merges ("a b" strings or ["a", "b"] pairs),
// optional unk_token and ignore_merges; added_tokens (id, content, special; lstrip/rstrip/single_word are
// ignored: Qwen's are all false; every added token is matched in the text before normalization, as Hugging
// Face does for "normalized": false, which Qwen's all are); normalizer absent, NFC, or a Sequence of NFC
// (Unicode.h's toNfc); pre_tokenizer absent (Qwen3.5 split), ByteLevel with use_regex false, or a
// Sequence of those with a Split using one of the two Qwen patterns. Anything else is an error.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "qgpu/runtime/text/PreTokenizer.h"

namespace qgpu::text {

// Bytes [begin, end) of a text.
struct TextSpan {
    size_t begin = 0, end = 0;
};

class Tokenizer {
public:
    static constexpr size_t kMaxTokenizerBytes = size_t(256) << 20;  // Qwen3.5's tokenizer.json: 12.8 MB
    static constexpr int64_t kTokenIdSlack = 65536;  // ids beyond the file's token count it may leave unused
    // Throw DiagnosticError naming the file for a missing file, malformed JSON or an unsupported model.
    static Tokenizer fromFile(const std::string& path);
    static Tokenizer fromJson(const std::string& json, const std::string& fileName = "tokenizer.json");

    std::vector<int> encode(std::string_view text) const;
    // The same, but the `literal` spans (ascending, not overlapping) are read as ordinary text: no added
    // token is matched inside one (nor one that would end inside it), so "<|im_end|>" there is its bytes'
    // BPE tokens, not the special token (Hugging Face's split_special_tokens, for these spans only). A
    // span's text is normalized and pre-tokenized together with the text around it up to the next added
    // token, so a span without added-token text encodes exactly as encode(text) does. Chat reads tool
    // results this way (ChatSession).
    std::vector<int> encode(std::string_view text, const std::vector<TextSpan>& literal) const;
    // The tokens' bytes concatenated, even if they are not valid UTF-8: decode(encode(text)) is the text
    // after normalization, byte for byte. Ids without a token are skipped; special tokens are skipped when
    // `skipSpecial`.
    std::string decode(const std::vector<int>& ids, bool skipSpecial = false) const;

    // The id of the token whose text is `text` (an added token's content, or a vocabulary token's
    // bytes: tokenId(" the"), not its byte-level spelling "Ġthe"); -1 if there is none.
    int tokenId(std::string_view text) const;
    int vocabSize() const { return int(m_bytes.size()); }  // one past the highest id
    bool isSpecial(int id) const { return id >= 0 && id < vocabSize() && m_special[id]; }
    bool isAdded(int id) const { return id >= 0 && id < vocabSize() && m_added[id]; }
    const std::string& tokenBytes(int id) const;  // empty for an id without a token
    SplitDialect splitDialect() const { return m_dialect; }

    // Appends added tokens (matched whole in text, never split) and returns their ids. A content that is
    // already an added or vocabulary token keeps its id, like Hugging Face's add_tokens.
    std::vector<int> addTokens(const std::vector<std::string>& contents, bool special = true);
    int addToken(const std::string& content, bool special = true);

private:
    Tokenizer() { m_byteIds.fill(-1); }

    struct Merge {
        int rank;
        int result;
    };

    static Tokenizer fromParsed(const nlohmann::json& j, const std::string& fileName);
    int setAdded(const std::string& content, int id, bool special);
    void setToken(int id, std::string bytes);
    void encodePiece(std::string_view piece, std::vector<int>& out) const;
    std::pair<int, size_t> matchAdded(std::string_view text, size_t pos) const;  // {id, length} or {-1, 0}
    static uint64_t pairKey(int a, int b) { return uint64_t(uint32_t(a)) << 32 | uint32_t(b); }

    std::string m_file;
    SplitDialect m_dialect = SplitDialect::Qwen35;
    std::unordered_map<std::string, int> m_vocab;  // byte-level spelling -> id
    std::unordered_map<uint64_t, Merge> m_merges;  // (left, right) -> rank and merged id
    std::array<int, 256> m_byteIds;                // the token of each single byte, -1 if none
    int m_unk = -1;
    bool m_ignoreMerges = false;
    bool m_nfc = false;                // normalize the text between added tokens to NFC
    std::vector<std::string> m_bytes;  // id -> the token's bytes
    std::vector<bool> m_special, m_added;
    std::unordered_map<std::string, int> m_addedByContent;
    std::vector<std::vector<size_t>> m_addedLengths;  // by first byte: the added tokens' lengths, longest first
};

// Turns generated ids into text as they come, never returning part of a UTF-8 character: bytes that may
// still complete a character are held back; bytes that can no longer form one come out as U+FFFD.
// How a byte-level BPE vocabulary spells `bytes` (GPT-2's byte-to-unicode map: a space is "Ġ").
std::string byteLevelSpelling(std::string_view bytes);

class StreamDecoder {
public:
    explicit StreamDecoder(const Tokenizer& tokenizer, bool skipSpecial = false)
        : m_tok(tokenizer), m_skipSpecial(skipSpecial) {}

    std::string push(int id);  // the complete text this token finishes (often empty or one character)
    std::string flush();       // what is held back, as U+FFFD; call at the end of generation

private:
    const Tokenizer& m_tok;
    bool m_skipSpecial;
    std::string m_pending;
};

}  // namespace qgpu::text
