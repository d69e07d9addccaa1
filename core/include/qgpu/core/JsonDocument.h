// JSON documents from files a user or a model wrote (launch specs, config.json, tokenizer.json, safetensors
// headers): nlohmann's parser with the checks it lacks, and every failure as a located DiagnosticError.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace qgpu {

constexpr int kMaxJsonDepth = 64;  // objects and arrays inside each other

// Parses `text`, the contents of `file`. Refuses, with the line and column where it can tell them:
// malformed JSON, a number out of range of a double (1e400), a key given twice in one object (nlohmann
// would keep the last silently), and nesting deeper than kMaxJsonDepth.
template <class Json = nlohmann::json>
Json parseJsonDocument(std::string_view text, const std::string& file);

// The path of a value in a document, as messages name it: `model.vocab`, `args[2].array`.
std::string jsonPath(const std::string& parent, const std::string& key);
std::string jsonPath(const std::string& parent, size_t index);

// Reads a value that must have one type; a mismatch names the path and says what was expected.
template <class T, class Json>
T jsonGet(const Json& value, const std::string& path, const std::string& file);

}  // namespace qgpu
