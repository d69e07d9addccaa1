#include "qgpu/ui/WordSearch.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace qgpu {

namespace {

std::vector<std::string> words(std::string_view s) {
    std::vector<std::string> out;
    std::string word;
    auto flush = [&] {
        if (word.size() > 2 && word.compare(word.size() - 2, 2, "'s") == 0) word.resize(word.size() - 2);
        if (!word.empty()) out.push_back(word);
        word.clear();
    };
    for (char c : s) {
        unsigned char u = static_cast<unsigned char>(c);
        if (std::isalnum(u) || c == '_' || (c == '\'' && !word.empty()))
            word += char(std::tolower(u));
        else
            flush();
    }
    flush();
    return out;
}

bool isNumber(const std::string& w) {
    return std::all_of(w.begin(), w.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// A name and the number after it are one unit ("lane 2"), so that "warp 0 lane 2" is not "warp 2, lane 0".
std::vector<std::string> units(std::string_view s) {
    std::vector<std::string> out;
    for (const std::string& w : words(s)) {
        if (!out.empty() && isNumber(w) && !isNumber(out.back()) && out.back().find(' ') == std::string::npos)
            out.back() += " " + w;
        else
            out.push_back(w);
    }
    return out;
}

}  // namespace

bool containsWords(std::string_view text, std::string_view search) {
    std::vector<std::string> have = units(text);
    for (const std::string& want : units(search))
        if (std::find(have.begin(), have.end(), want) == have.end()) return false;
    return true;
}

}  // namespace qgpu
