// OutputDirectory writes into a temporary only it created, never touches what the user left beside OUT,
// and refuses a second writer of the same OUT while the first holds it.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <string>

#include "qgpu/core/Diagnostic.h"
#include "qgpu/core/Files.h"

using namespace qgpu;
namespace fs = std::filesystem;

namespace {

struct Scratch {
    fs::path dir = fs::temp_directory_path() / ("qgpu-outdir-" + std::to_string(::getpid()));
    Scratch() {
        fs::remove_all(dir);
        fs::create_directories(dir);
    }
    ~Scratch() { fs::remove_all(dir); }
    // Every name in the folder, sorted.
    std::string names() const {
        std::set<std::string> all;
        for (const auto& e : fs::directory_iterator(dir)) all.insert(e.path().filename().string());
        std::string out;
        for (const auto& n : all) out += n + " ";
        return out;
    }
};

std::string errorOf(const fs::path& out) {
    try {
        OutputDirectory second(out);
    } catch (const DiagnosticError& e) {
        return e.what();
    }
    return "accepted";
}

}  // namespace

TEST(OutputDirectory, AUsersOwnPartialIsNeverTouched) {
    Scratch s;
    fs::path out = s.dir / "gpu";
    fs::create_directories(s.dir / "gpu.partial");
    writeTextFile(s.dir / "gpu.partial" / "mine.txt", "the user's");
    {
        OutputDirectory failed(out);  // a job that fails: its temporary goes, nothing else
        EXPECT_NE(failed.partial(), s.dir / "gpu.partial");
        EXPECT_EQ(failed.partial().parent_path(), s.dir);
        writeTextFile(failed.partial() / "half.bin", "x");
    }
    EXPECT_EQ(s.names(), "gpu.partial ");
    {
        OutputDirectory done(out);
        writeTextFile(done.partial() / "whole.bin", "x");
        done.commit();
    }
    EXPECT_EQ(s.names(), "gpu gpu.partial ");
    EXPECT_TRUE(fs::exists(out / "whole.bin"));
    EXPECT_EQ(readFile(s.dir / "gpu.partial" / "mine.txt"), "the user's");
}

TEST(OutputDirectory, ASecondWriterOfTheSameOutIsRefusedWhileTheFirstRuns) {
    Scratch s;
    fs::path out = s.dir / "gpu";
    {
        OutputDirectory first(out);
        std::string e = errorOf(out);
        EXPECT_NE(e.find("another process is writing it"), std::string::npos) << e;
        EXPECT_EQ(errorOf(s.dir / "other"), "accepted");  // another OUT in the same folder is free
    }
    EXPECT_EQ(s.names(), "");               // the lock file goes with the run that made it
    writeTextFile(s.dir / "gpu.lock", "");  // left by a killed run: not held, so not in the way, and kept
    EXPECT_EQ(errorOf(out), "accepted");
    EXPECT_EQ(s.names(), "gpu.lock ");
}

TEST(OutputDirectory, AnExistingOutIsRefusedBeforeAnythingIsWritten) {
    Scratch s;
    fs::create_directories(s.dir / "gpu");
    std::string e = errorOf(s.dir / "gpu");
    EXPECT_NE(e.find("already exists; give a new directory"), std::string::npos) << e;
    EXPECT_EQ(s.names(), "gpu ");
}
