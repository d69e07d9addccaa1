// The environment variables qgpu reads: a value that does not parse is refused with the variable's name and
// range, never read as another number.
#include <gtest/gtest.h>

#include <cstdlib>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Environment.h"

using namespace qgpu;

namespace {

constexpr const char* kName = "QGPU_ENVIRONMENT_TEST";

std::string refusal(const char* value) {
    ::setenv(kName, value, 1);
    try {
        environmentInteger(kName, 7, 1, 8);
    } catch (const DiagnosticError& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST(Environment, AnIntegerOutsideItsRangeOrWithJunkIsRefusedByName) {
    ::unsetenv(kName);
    EXPECT_EQ(environmentInteger(kName, 7, 1, 8), 7);
    ::setenv(kName, "", 1);
    EXPECT_EQ(environmentInteger(kName, 7, 1, 8), 7);
    ::setenv(kName, "3", 1);
    EXPECT_EQ(environmentInteger(kName, 7, 1, 8), 3);
    for (const char* bad : {"abc", "8x", "1.5", "0", "9", "-1", "99999999999999999999"})
        EXPECT_NE(
            refusal(bad).find("QGPU_ENVIRONMENT_TEST takes a whole number from 1 to 8, not '" + std::string(bad) + "'"),
            std::string::npos)
            << bad << ": " << refusal(bad);
    ::unsetenv(kName);
}

TEST(Environment, TheCacheFolderComesFromXdgThenHome) {
    const char* xdg = std::getenv("XDG_CACHE_HOME");
    const char* home = std::getenv("HOME");
    std::string savedXdg = xdg ? xdg : "", savedHome = home ? home : "";
    ::setenv("XDG_CACHE_HOME", "/x/cache", 1);
    EXPECT_EQ(userCacheDir(), "/x/cache");
    ::setenv("XDG_CACHE_HOME", "", 1);  // set but empty: not a folder
    ::setenv("HOME", "/home/u", 1);
    EXPECT_EQ(userCacheDir(), "/home/u/.cache");
    ::unsetenv("XDG_CACHE_HOME");
    ::unsetenv("HOME");
    EXPECT_THROW(userCacheDir(), DiagnosticError);
    if (xdg) ::setenv("XDG_CACHE_HOME", savedXdg.c_str(), 1);
    if (home) ::setenv("HOME", savedHome.c_str(), 1);
}
