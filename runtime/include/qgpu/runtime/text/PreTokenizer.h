// Qwen's pre-tokenizer split, written by hand over UTF-8 code points (no regex engine). It reproduces
// leftmost-first matching of the tokenizer.json Split regex, in two dialects:
//
//   Qwen2 (Qwen2, Qwen2.5, Qwen3):
//     (?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+
//   Qwen35 (Qwen3.5): the same with combining marks kept in words and out of punctuation runs:
//     ...|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|...
//
// So: contractions ("don't" -> "don" "'t", case-insensitive), words with one optional leading non-letter
// (" hello", "'hello"), every digit alone, punctuation runs with an optional leading space and trailing
// newlines, whitespace runs (a run before a word leaves its last space to the word: "a   b" -> "a" "  " " b").
// Bytes that are not valid UTF-8 split like punctuation, one byte per character.
#pragma once

#include <string_view>
#include <vector>

namespace qgpu::text {

enum class SplitDialect { Qwen2, Qwen35 };

// The patterns exactly as tokenizer.json spells them (pre_tokenizer Split, "Regex").
extern const std::string_view kQwen2SplitPattern;
extern const std::string_view kQwen35SplitPattern;

// Pieces covering `text` in order, without gaps; views into `text`.
std::vector<std::string_view> preTokenize(std::string_view text, SplitDialect dialect);

}  // namespace qgpu::text
