// Builds small tokenizer.json files for the tests, with an independent copy of GPT-2's byte alphabet.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/runtime/text/PreTokenizer.h"

namespace qgpu::text::testing {

// bytes -> the vocabulary's spelling (GPT-2's bytes_to_unicode)
inline std::string spell(const std::string& bytes) {
    std::string out;
    for (unsigned char b : bytes) {
        unsigned cp = b;
        if (!((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174))) {
            int n = 0;
            for (int x = 0; x < b; ++x)
                if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174))) ++n;
            cp = 256 + n;
        }
        if (cp < 0x80) {
            out += char(cp);
        } else {
            out += char(0xC0 | cp >> 6);
            out += char(0x80 | (cp & 0x3F));
        }
    }
    return out;
}

struct AddedToken {
    int id;
    std::string content;
    bool special;
};

struct TokenizerSpec {
    std::vector<std::string> tokens;                          // after the 256 byte tokens (ids 0..255 = byte value)
    std::vector<std::pair<std::string, std::string>> merges;  // raw bytes, by rank
    std::vector<AddedToken> added;
    SplitDialect dialect = SplitDialect::Qwen2;
    bool mergesAsPairs = false;  // ["a", "b"] instead of "a b"
};

inline nlohmann::json tokenizerJson(const TokenizerSpec& spec) {
    nlohmann::json vocab = nlohmann::json::object();
    for (int b = 0; b < 256; ++b) vocab[spell(std::string(1, char(b)))] = b;
    int next = 256;
    for (const std::string& t : spec.tokens) vocab[spell(t)] = next++;
    nlohmann::json merges = nlohmann::json::array();
    for (const auto& [a, b] : spec.merges) {
        if (spec.mergesAsPairs)
            merges.push_back({spell(a), spell(b)});
        else
            merges.push_back(spell(a) + " " + spell(b));
    }
    nlohmann::json added = nlohmann::json::array();
    for (const AddedToken& a : spec.added)
        added.push_back({{"id", a.id},
                         {"content", a.content},
                         {"special", a.special},
                         {"single_word", false},
                         {"lstrip", false},
                         {"rstrip", false},
                         {"normalized", false}});
    std::string pattern(spec.dialect == SplitDialect::Qwen2 ? kQwen2SplitPattern : kQwen35SplitPattern);
    return {{"version", "1.0"},
            {"added_tokens", added},
            {"normalizer", {{"type", "NFC"}}},
            {"pre_tokenizer",
             {{"type", "Sequence"},
              {"pretokenizers",
               {{{"type", "Split"}, {"pattern", {{"Regex", pattern}}}, {"behavior", "Isolated"}, {"invert", false}},
                {{"type", "ByteLevel"}, {"add_prefix_space", false}, {"trim_offsets", false}, {"use_regex", false}}}}}},
            {"decoder", {{"type", "ByteLevel"}}},
            {"model",
             {{"type", "BPE"},
              {"dropout", nullptr},
              {"unk_token", nullptr},
              {"continuing_subword_prefix", ""},
              {"end_of_word_suffix", ""},
              {"fuse_unk", false},
              {"byte_fallback", false},
              {"ignore_merges", false},
              {"vocab", vocab},
              {"merges", merges}}}};
}

inline std::string errorOf(const std::function<void()>& f) {
    try {
        f();
    } catch (const DiagnosticError& e) {
        return e.what();
    }
    return "";
}

}  // namespace qgpu::text::testing
