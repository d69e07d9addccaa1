#include "FuzzTarget.h"
#include "qgpu/runtime/text/Tokenizer.h"

// The first line is text to encode with the tokenizer.json that follows it.
void fuzzOne(const std::string& input) {
    size_t newline = input.find('\n');
    std::string text = newline == std::string::npos ? "" : input.substr(0, newline);
    qgpu::text::Tokenizer tokenizer = qgpu::text::Tokenizer::fromJson(
        newline == std::string::npos ? input : input.substr(newline + 1), "tokenizer.json");
    tokenizer.decode(tokenizer.encode(text));
}
