#include "qgpu/core/JsonDocument.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "qgpu/core/Diagnostic.h"

namespace qgpu {

namespace {

[[noreturn]] void failAtOffset(std::string_view text, const std::string& file, size_t offset,
                               const std::string& message) {
    throw DiagnosticError(diagnosticAtOffset(file, text, offset, message));
}

// nlohmann's message without its "[json.exception...] parse error at line L, column C: " prefix.
std::string parseErrorMessage(const std::string& what) {
    size_t at = what.find("column ");
    size_t colon = at == std::string::npos ? std::string::npos : what.find(": ", at);
    return colon == std::string::npos ? what : what.substr(colon + 2);
}

// What the callback found wrong; thrown out of nlohmann's parser and turned into a diagnostic.
struct Refusal {
    std::string message;
};

// What a value of type T must be, as an error message says it.
template <class T>
std::string expectedKind() {
    if constexpr (std::is_same_v<T, bool>)
        return "true or false";
    else if constexpr (std::is_same_v<T, std::string>)
        return "a string";
    else if constexpr (std::is_integral_v<T>)
        return "an integer from " + std::to_string(std::numeric_limits<T>::min()) + " to " +
               std::to_string(std::numeric_limits<T>::max());
    else
        return "a finite number";
}

// A value as a message quotes it: at most 40 characters of its JSON.
template <class Json>
std::string quoted(const Json& value) {
    std::string s = value.dump();
    return s.size() <= 40 ? s : s.substr(0, 37) + "...";
}

}  // namespace

template <class Json>
Json parseJsonDocument(std::string_view text, const std::string& file) {
    struct Open {
        bool object;
        std::string path;
        std::unordered_set<std::string> keys;
        std::string key;  // the object's key being read
        size_t index = 0;
    };
    std::vector<Open> open;
    auto childPath = [&]() -> std::string {
        if (open.empty()) return "";
        const Open& o = open.back();
        return o.object ? jsonPath(o.path, o.key) : jsonPath(o.path, o.index);
    };
    auto where = [](const std::string& path) {
        return path.empty() ? std::string("the document") : "\"" + path + "\"";
    };
    auto callback = [&](int, nlohmann::detail::parse_event_t event, Json& parsed) {
        using E = nlohmann::detail::parse_event_t;
        switch (event) {
            case E::object_start:
            case E::array_start:
                if (open.size() >= size_t(kMaxJsonDepth))
                    throw Refusal{"nested too deeply (limit " + std::to_string(kMaxJsonDepth) +
                                  " levels of objects and arrays) at " + where(childPath())};
                open.push_back(Open{event == E::object_start, childPath(), {}, {}, 0});
                break;
            case E::key: {
                std::string key = parsed.template get<std::string>();
                if (!open.back().keys.insert(key).second)
                    throw Refusal{"the key \"" + key + "\" is given twice in " + where(open.back().path) +
                                  "; give each key once"};
                open.back().key = std::move(key);
                break;
            }
            case E::object_end:
            case E::array_end: open.pop_back(); [[fallthrough]];
            case E::value:
                if (!open.empty() && !open.back().object) ++open.back().index;
                break;
        }
        return true;
    };
    try {
        return Json::parse(text.begin(), text.end(), callback);
    } catch (const Refusal& r) {
        throw DiagnosticError(Diagnostic{file, 0, 0, r.message});
    } catch (const nlohmann::json::parse_error& e) {
        failAtOffset(text, file, e.byte ? e.byte - 1 : 0, "malformed JSON: " + parseErrorMessage(e.what()));
    } catch (const nlohmann::json::out_of_range& e) {  // "number overflow parsing '1e400'"
        std::string what = e.what();
        size_t q = what.find('\'');
        std::string number = q == std::string::npos ? "" : what.substr(q + 1, what.rfind('\'') - q - 1);
        size_t at = number.empty() ? std::string_view::npos : text.find(number);
        std::string message = "the number " + number + " is out of range (JSON numbers here must fit a double)";
        if (at == std::string_view::npos) throw DiagnosticError(Diagnostic{file, 0, 0, message});
        failAtOffset(text, file, at, message);
    } catch (const nlohmann::json::exception& e) {
        throw DiagnosticError(Diagnostic{file, 0, 0, std::string("unreadable JSON: ") + e.what()});
    }
}

std::string jsonPath(const std::string& parent, const std::string& key) {
    return parent.empty() ? key : parent + "." + key;
}

std::string jsonPath(const std::string& parent, size_t index) { return parent + "[" + std::to_string(index) + "]"; }

template <class T, class Json>
T jsonGet(const Json& value, const std::string& path, const std::string& file) {
    bool ok;
    if constexpr (std::is_same_v<T, bool>) {
        ok = value.is_boolean();
    } else if constexpr (std::is_same_v<T, std::string>) {
        ok = value.is_string();
    } else if constexpr (std::is_integral_v<T>) {
        if (value.is_number_unsigned())
            ok = value.template get<uint64_t>() <= uint64_t(std::numeric_limits<T>::max());
        else
            ok = value.is_number_integer() && value.template get<int64_t>() >= int64_t(std::numeric_limits<T>::min()) &&
                 (std::is_unsigned_v<T> || value.template get<int64_t>() <= int64_t(std::numeric_limits<T>::max()));
    } else {
        ok = value.is_number() && std::isfinite(value.template get<T>());
    }
    if (!ok) failAt(file, "\"" + path + "\" must be " + expectedKind<T>() + ", not " + quoted(value));
    return value.template get<T>();
}

template nlohmann::json parseJsonDocument<nlohmann::json>(std::string_view, const std::string&);
template nlohmann::ordered_json parseJsonDocument<nlohmann::ordered_json>(std::string_view, const std::string&);
#define QGPU_JSON_GET(T)                                                                                  \
    template T jsonGet<T, nlohmann::json>(const nlohmann::json&, const std::string&, const std::string&); \
    template T jsonGet<T, nlohmann::ordered_json>(const nlohmann::ordered_json&, const std::string&,      \
                                                  const std::string&);
QGPU_JSON_GET(bool)
QGPU_JSON_GET(int)
QGPU_JSON_GET(int64_t)
QGPU_JSON_GET(uint32_t)
QGPU_JSON_GET(uint64_t)
QGPU_JSON_GET(float)
QGPU_JSON_GET(double)
QGPU_JSON_GET(std::string)
#undef QGPU_JSON_GET

}  // namespace qgpu
