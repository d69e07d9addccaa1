#include "qgpu/runtime/text/Tokenizer.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <queue>
#include <sstream>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Files.h"
#include "qgpu/core/JsonDocument.h"
#include "qgpu/runtime/text/Unicode.h"

namespace qgpu::text {
namespace {

using Json = nlohmann::json;

// GPT-2's byte-to-unicode map: printable Latin-1 bytes stand for themselves, the other 68 bytes for
// U+0100.. in byte order (space is U+0120 'Ġ', newline U+010A 'Ċ').
struct ByteLevel {
    char32_t toChar[256];
    int toByte[0x144];  // code point -> byte, -1 outside the alphabet

    ByteLevel() {
        std::fill(std::begin(toByte), std::end(toByte), -1);
        int extra = 0;
        for (int b = 0; b < 256; ++b) {
            bool printable = (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF);
            toChar[b] = printable ? char32_t(b) : char32_t(256 + extra++);
            toByte[toChar[b]] = b;
        }
    }

    std::string spell(std::string_view bytes) const {  // bytes -> the vocabulary's spelling
        std::string out;
        for (unsigned char b : bytes) appendUtf8(out, toChar[b]);
        return out;
    }

    std::string bytes(std::string_view spelling) const {  // the inverse; other characters stay as they are
        std::string out;
        for (size_t pos = 0; pos < spelling.size();) {
            Utf8Char c = decodeUtf8(spelling, pos);
            if (c.status == Utf8Char::Ok && c.cp < 0x144 && toByte[c.cp] >= 0)
                out += char(toByte[c.cp]);
            else
                out.append(spelling.substr(pos, c.length));
            pos += c.length;
        }
        return out;
    }
};

const ByteLevel& byteLevel() {
    static const ByteLevel table;
    return table;
}

std::string inQuotes(const std::string& s) { return "\"" + s + "\""; }

// Resolves the pre_tokenizer to one of the two Qwen splits, or fails.
SplitDialect resolveDialect(const Json& pre, const std::string& file) {
    if (pre.is_null()) return SplitDialect::Qwen35;
    std::optional<SplitDialect> split;
    bool gpt2Regex = false;
    auto visit = [&](auto&& self, const Json& node) -> void {
        std::string type = node.is_object() ? node.value("type", "") : "";
        if (type == "Sequence") {
            for (const Json& p : node.value("pretokenizers", Json::array())) self(self, p);
        } else if (type == "Split") {
            std::string regex;
            if (node.contains("pattern") && node["pattern"].is_object()) regex = node["pattern"].value("Regex", "");
            if (regex == kQwen2SplitPattern) {
                split = SplitDialect::Qwen2;
            } else if (regex == kQwen35SplitPattern) {
                split = SplitDialect::Qwen35;
            } else {
                failAt(file, "pre_tokenizer Split pattern " + node.value("pattern", Json()).dump() +
                                 " is not Qwen's; only Qwen2/Qwen3 and Qwen3.5 tokenizers are supported");
            }
            if (node.value("behavior", "Isolated") != "Isolated" || node.value("invert", false))
                failAt(file, "pre_tokenizer Split must be \"Isolated\" and not inverted, as in Qwen's tokenizers");
        } else if (type == "ByteLevel") {
            gpt2Regex = gpt2Regex || node.value("use_regex", true);
        } else {
            failAt(file, "pre_tokenizer type " + inQuotes(type) +
                             " is not supported; expected Qwen's Split + ByteLevel (use_regex false)");
        }
    };
    visit(visit, pre);
    if (gpt2Regex)
        failAt(file,
               "pre_tokenizer ByteLevel with use_regex (GPT-2's split) is not supported; "
               "expected Qwen's Split + ByteLevel (use_regex false)");
    if (!split) failAt(file, "pre_tokenizer has no Split with Qwen's pattern; only Qwen tokenizers are supported");
    return *split;
}

// Whether the normalizer applies NFC (NFC, or a Sequence holding it); fails for any other normalizer.
bool resolveNfc(const Json& norm, const std::string& file) {
    if (norm.is_null()) return false;
    std::string type = norm.is_object() ? norm.value("type", "") : "";
    if (type == "NFC") return true;
    if (type == "Sequence") {
        bool nfc = false;
        for (const Json& n : norm.value("normalizers", Json::array())) nfc = resolveNfc(n, file) || nfc;
        return nfc;
    }
    failAt(file, "normalizer " + inQuotes(type) + " is not supported (only NFC, as in Qwen's tokenizers)");
}

// The "model" object of a tokenizer.json, checked to be a byte-level BPE with a vocab and merges.
const Json& checkedModel(const Json& j, const std::string& fileName) {
    if (!j.is_object() || !j.contains("model") || !j["model"].is_object())
        failAt(fileName, "no \"model\" object; expected a Hugging Face tokenizer.json");
    const Json& model = j["model"];
    std::string type = model.value("type", "BPE");
    if (type != "BPE")
        failAt(fileName, "model.type is " + inQuotes(type) + "; only byte-level BPE (\"BPE\") is supported");
    for (const char* key : {"continuing_subword_prefix", "end_of_word_suffix"})
        if (model.contains(key) && model[key].is_string() && !model[key].get<std::string>().empty())
            failAt(fileName, std::string("model.") + key + " is not supported (byte-level BPE has none)");
    if (model.value("byte_fallback", false)) failAt(fileName, "model.byte_fallback is not supported (byte-level BPE)");
    if (!model.contains("vocab") || !model["vocab"].is_object())
        failAt(fileName, "model.vocab is missing or not an object of token -> id");
    if (!model.contains("merges") || !model["merges"].is_array())
        failAt(fileName, "model.merges is missing or not an array");
    return model;
}

// The token id `id` holds, which must be an integer from 0 to maxId; `where` names it in the error.
int checkedTokenId(const Json& id, const std::string& where, int64_t maxId, const std::string& fileName) {
    if (!id.is_number_integer() || id.get<int64_t>() < 0 || id.get<int64_t>() > maxId)
        failAt(fileName, where + " is " + id.dump() + "; a token id must be an integer from 0 to " +
                             std::to_string(maxId) + " (the file's token count plus " +
                             std::to_string(Tokenizer::kTokenIdSlack) + ")");
    return id.get<int>();
}

// The vocabulary ids of merge m's left (a) and right (b) tokens and of the token they merge into.
struct MergeIds {
    int a, b, merged;
};
MergeIds mergeIds(const Json& m, size_t rank, const std::unordered_map<std::string, int>& vocab,
                  const std::string& fileName) {
    std::string left, right;
    if (m.is_string()) {
        const std::string& s = m.get_ref<const std::string&>();
        size_t space = s.find(' ');
        if (space == std::string::npos || s.find(' ', space + 1) != std::string::npos)
            failAt(fileName, "model.merges[" + std::to_string(rank) + "] " + m.dump() + " is not \"left right\"");
        left = s.substr(0, space), right = s.substr(space + 1);
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
        left = m[0].get<std::string>(), right = m[1].get<std::string>();
    } else {
        failAt(fileName, "model.merges[" + std::to_string(rank) + "] " + m.dump() +
                             " is neither \"left right\" nor [\"left\", \"right\"]");
    }
    auto find = [&](const std::string& token, const char* what) {
        auto it = vocab.find(token);
        if (it == vocab.end())
            failAt(fileName, "model.merges[" + std::to_string(rank) + "] " + m.dump() + ": the " + what + " token " +
                                 inQuotes(token) + " is not in model.vocab; the file is inconsistent");
        return it->second;
    };
    int a = find(left, "left"), b = find(right, "right"), merged = find(left + right, "merged");
    return {a, b, merged};
}

}  // namespace

std::string byteLevelSpelling(std::string_view bytes) { return byteLevel().spell(bytes); }

Tokenizer Tokenizer::fromFile(const std::string& path) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        failAt(path, "no such file; a Hugging Face model directory has tokenizer.json next to config.json");
    return fromJson(readFile(path, kMaxTokenizerBytes), path);
}

Tokenizer Tokenizer::fromJson(const std::string& json, const std::string& fileName) {
    Json j = parseJsonDocument(json, fileName);
    try {
        return fromParsed(j, fileName);
    } catch (const Json::exception& e) {  // a field of the wrong type
        failAt(fileName,
               std::string("unexpected structure (") + e.what() + "); expected a Hugging Face tokenizer.json");
    }
}

Tokenizer Tokenizer::fromParsed(const nlohmann::json& j, const std::string& fileName) {
    const Json& model = checkedModel(j, fileName);

    Tokenizer t;
    t.m_file = fileName;
    const ByteLevel& bl = byteLevel();
    // Ids are dense in every real tokenizer.json; a bound on them keeps one absurd id from allocating
    // gigabytes of empty entries.
    size_t added = j.contains("added_tokens") && j["added_tokens"].is_array() ? j["added_tokens"].size() : 0;
    int64_t maxId = int64_t(model["vocab"].size() + added) + kTokenIdSlack;
    std::vector<bool> taken;
    for (const auto& [token, value] : model["vocab"].items()) {
        int id = checkedTokenId(value, "model.vocab[" + inQuotes(token) + "]", maxId, fileName);
        if (size_t(id) >= taken.size()) taken.resize(size_t(id) + 1);
        if (taken[size_t(id)])
            failAt(fileName, "model.vocab[" + inQuotes(token) + "] has id " + std::to_string(id) +
                                 ", which another token of model.vocab has too; each id names one token");
        taken[size_t(id)] = true;
        t.m_vocab[token] = id;
        t.setToken(id, bl.bytes(token));
    }
    for (int b = 0; b < 256; ++b) {
        auto it = t.m_vocab.find(bl.spell(std::string(1, char(b))));
        t.m_byteIds[b] = it == t.m_vocab.end() ? -1 : it->second;
    }

    const Json& merges = model["merges"];
    t.m_merges.reserve(merges.size());
    for (size_t rank = 0; rank < merges.size(); ++rank) {
        auto [a, b, merged] = mergeIds(merges[rank], rank, t.m_vocab, fileName);
        t.m_merges.emplace(pairKey(a, b), Merge{int(rank), merged});  // a repeated pair keeps its first rank
    }
    if (model.contains("unk_token") && model["unk_token"].is_string()) {
        auto it = t.m_vocab.find(model["unk_token"].get<std::string>());
        if (it != t.m_vocab.end()) t.m_unk = it->second;
    }
    t.m_ignoreMerges = model.value("ignore_merges", false);

    if (j.contains("added_tokens") && !j["added_tokens"].is_null()) {
        if (!j["added_tokens"].is_array()) failAt(fileName, "added_tokens is not an array");
        for (const Json& a : j["added_tokens"]) {
            if (!a.is_object() || !a.contains("id") || !a.contains("content") || !a["content"].is_string() ||
                a["content"].get<std::string>().empty())
                failAt(fileName, "added token " + a.dump() + " needs an \"id\" and a non-empty \"content\"");
            int id = checkedTokenId(a["id"], "the id of added token " + a["content"].dump(), maxId, fileName);
            t.setAdded(a["content"].get<std::string>(), id, a.value("special", false));
        }
    }
    t.m_dialect = resolveDialect(j.value("pre_tokenizer", Json()), fileName);
    t.m_nfc = resolveNfc(j.value("normalizer", Json()), fileName);
    return t;
}

void Tokenizer::setToken(int id, std::string bytes) {
    if (id >= vocabSize()) {
        m_bytes.resize(size_t(id) + 1);
        m_special.resize(size_t(id) + 1, false);
        m_added.resize(size_t(id) + 1, false);
    }
    m_bytes[id] = std::move(bytes);
}

int Tokenizer::setAdded(const std::string& content, int id, bool special) {
    setToken(id, content);  // an added token decodes to its content
    m_added[id] = true;
    m_special[id] = special;
    m_addedByContent[content] = id;
    if (m_addedLengths.empty()) m_addedLengths.resize(256);
    std::vector<size_t>& lengths = m_addedLengths[uint8_t(content[0])];
    auto at = std::lower_bound(lengths.begin(), lengths.end(), content.size(), std::greater<>());
    if (at == lengths.end() || *at != content.size()) lengths.insert(at, content.size());
    return id;
}

int Tokenizer::addToken(const std::string& content, bool special) {
    if (content.empty()) throw std::invalid_argument("Tokenizer::addToken: empty token");
    if (auto it = m_addedByContent.find(content); it != m_addedByContent.end()) return it->second;
    auto it = m_vocab.find(byteLevel().spell(content));
    return setAdded(content, it != m_vocab.end() ? it->second : vocabSize(), special);
}

std::vector<int> Tokenizer::addTokens(const std::vector<std::string>& contents, bool special) {
    std::vector<int> ids;
    ids.reserve(contents.size());
    for (const std::string& c : contents) ids.push_back(addToken(c, special));
    return ids;
}

const std::string& Tokenizer::tokenBytes(int id) const {
    static const std::string none;
    return id >= 0 && id < vocabSize() ? m_bytes[id] : none;
}

int Tokenizer::tokenId(std::string_view text) const {
    if (auto it = m_addedByContent.find(std::string(text)); it != m_addedByContent.end()) return it->second;
    auto it = m_vocab.find(byteLevel().spell(text));
    return it == m_vocab.end() ? -1 : it->second;
}

std::pair<int, size_t> Tokenizer::matchAdded(std::string_view text, size_t pos) const {
    if (m_addedLengths.empty()) return {-1, 0};
    for (size_t len : m_addedLengths[uint8_t(text[pos])]) {  // longest first
        if (len > text.size() - pos) continue;
        auto it = m_addedByContent.find(std::string(text.substr(pos, len)));
        if (it != m_addedByContent.end()) return {it->second, len};
    }
    return {-1, 0};
}

std::vector<int> Tokenizer::encode(std::string_view text) const { return encode(text, {}); }

std::vector<int> Tokenizer::encode(std::string_view text, const std::vector<TextSpan>& literal) const {
    std::vector<int> ids;
    auto span = literal.begin();                  // the first literal span that does not end at or before pos
    auto plain = [&](std::string_view segment) {  // text between added tokens: normalized, then split
        std::string normalized;
        if (m_nfc && !nfcQuickCheck(segment)) segment = normalized = toNfc(segment);
        for (std::string_view piece : preTokenize(segment, m_dialect)) encodePiece(piece, ids);
    };
    size_t start = 0;
    for (size_t pos = 0; pos < text.size();) {
        while (span != literal.end() && (span->end <= pos || span->end <= span->begin)) ++span;
        if (span != literal.end() && span->begin <= pos) {  // inside a literal span: ordinary text
            pos = std::min(span->end, text.size());
            continue;
        }
        auto [id, len] = matchAdded(text, pos);
        if (id >= 0 && span != literal.end() && pos + len > span->begin) id = -1;  // it would end in a span
        if (id < 0) {
            ++pos;
            continue;
        }
        plain(text.substr(start, pos - start));
        ids.push_back(id);
        pos += len;
        start = pos;
    }
    plain(text.substr(start));
    return ids;
}

// Merges the piece's byte tokens as Hugging Face's BPE does: always the pair of lowest rank next, the
// leftmost first among equal ranks.
void Tokenizer::encodePiece(std::string_view piece, std::vector<int>& out) const {
    if (m_ignoreMerges) {
        if (auto it = m_vocab.find(byteLevel().spell(piece)); it != m_vocab.end()) {
            out.push_back(it->second);
            return;
        }
    }
    struct Symbol {
        int id, prev, next;
        bool alive;
    };
    std::vector<Symbol> sym(piece.size());
    for (size_t i = 0; i < piece.size(); ++i) {
        int id = m_byteIds[uint8_t(piece[i])];
        if (id < 0) id = m_unk;
        if (id < 0) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02X", unsigned(uint8_t(piece[i])));
            failAt(m_file, std::string("byte ") + hex + " has no token in model.vocab and there is no unk_token; " +
                               "a byte-level vocabulary needs all 256 byte tokens");
        }
        sym[i] = {id, int(i) - 1, i + 1 < piece.size() ? int(i) + 1 : -1, true};
    }
    struct Candidate {
        int rank, pos, result;
        bool operator>(const Candidate& o) const { return rank != o.rank ? rank > o.rank : pos > o.pos; }
    };
    std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>> queue;
    auto consider = [&](int pos) {
        if (pos < 0 || sym[pos].next < 0) return;
        auto it = m_merges.find(pairKey(sym[pos].id, sym[sym[pos].next].id));
        if (it != m_merges.end()) queue.push({it->second.rank, pos, it->second.result});
    };
    for (int i = 0; i + 1 < int(sym.size()); ++i) consider(i);
    while (!queue.empty()) {
        Candidate c = queue.top();
        queue.pop();
        Symbol& s = sym[c.pos];
        if (!s.alive || s.next < 0) continue;
        auto it = m_merges.find(pairKey(s.id, sym[s.next].id));
        if (it == m_merges.end() || it->second.result != c.result) continue;  // stale: a neighbour changed
        Symbol& right = sym[s.next];
        right.alive = false;
        s.id = c.result;
        s.next = right.next;
        if (s.next >= 0) sym[s.next].prev = c.pos;
        consider(s.prev);
        consider(c.pos);
    }
    for (int i = sym.empty() ? -1 : 0; i >= 0; i = sym[i].next) out.push_back(sym[i].id);
}

std::string Tokenizer::decode(const std::vector<int>& ids, bool skipSpecial) const {
    std::string out;
    for (int id : ids)
        if (!(skipSpecial && isSpecial(id))) out += tokenBytes(id);
    return out;
}

std::string StreamDecoder::push(int id) {
    if (m_skipSpecial && m_tok.isSpecial(id)) return {};
    m_pending += m_tok.tokenBytes(id);
    std::string out;
    size_t pos = 0;
    while (pos < m_pending.size()) {
        Utf8Char c = decodeUtf8(m_pending, pos);
        if (c.status == Utf8Char::Incomplete) break;  // may complete with the next token
        if (c.status == Utf8Char::Ok)
            out.append(m_pending, pos, c.length);
        else
            appendUtf8(out, 0xFFFD);
        pos += c.length;
    }
    m_pending.erase(0, pos);
    return out;
}

std::string StreamDecoder::flush() {
    std::string out;
    for (size_t pos = 0; pos < m_pending.size();) {
        Utf8Char c = decodeUtf8(m_pending, pos);
        if (c.status == Utf8Char::Ok)
            out.append(m_pending, pos, c.length);
        else
            appendUtf8(out, 0xFFFD);
        pos += c.length;
    }
    m_pending.clear();
    return out;
}

}  // namespace qgpu::text
