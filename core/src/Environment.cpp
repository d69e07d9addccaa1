#include "qgpu/core/Environment.h"

#include <cerrno>
#include <cstdlib>

#include "qgpu/core/Diagnostic.h"

namespace qgpu {

std::optional<std::string> environmentText(const char* name) {
    const char* value = std::getenv(name);
    if (!value || !*value) return std::nullopt;
    return std::string(value);
}

int environmentInteger(const char* name, int fallback, int min, int max) {
    std::optional<std::string> text = environmentText(name);
    if (!text) return fallback;
    errno = 0;
    char* end = nullptr;
    long long v = std::strtoll(text->c_str(), &end, 10);
    if (*end != '\0' || errno == ERANGE || v < min || v > max)
        throw DiagnosticError(Diagnostic{
            "", 0, 0,
            "the environment variable " + std::string(name) + " takes a whole number from " + std::to_string(min) +
                " to " + std::to_string(max) + ", not '" + *text + "'; set it so, or unset it for the default"});
    return int(v);
}

std::string userCacheDir() {
    if (std::optional<std::string> cache = environmentText("XDG_CACHE_HOME")) return *cache;
    if (std::optional<std::string> home = environmentText("HOME")) return *home + "/.cache";
    throw DiagnosticError(Diagnostic{"", 0, 0, "neither XDG_CACHE_HOME nor HOME is set: give the folder with --dir"});
}

}  // namespace qgpu
