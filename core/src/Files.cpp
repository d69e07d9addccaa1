#include "qgpu/core/Files.h"

#include <pthread.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include "qgpu/core/Diagnostic.h"

namespace qgpu {

std::string readFile(const std::filesystem::path& path, size_t maxBytes) {
    std::error_code ec;
    auto status = std::filesystem::status(path, ec);
    if (ec || !std::filesystem::exists(status)) failAt(path.string(), "no such file; check the path");
    if (!std::filesystem::is_regular_file(status)) failAt(path.string(), "is not a regular file; give a file");
    auto size = std::filesystem::file_size(path, ec);
    if (!ec && size > maxBytes)
        failAt(path.string(), "the file has " + std::to_string(size) + " bytes, more than the limit of " +
                                  std::to_string(maxBytes) + "; give a smaller input");
    std::ifstream in(path, std::ios::binary);
    if (!in) failAt(path.string(), "cannot open the file; check its permissions");
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

void writeTextFile(const std::filesystem::path& path, const std::string& text) {
    std::ofstream out(path, std::ios::binary);
    out << text;
    if (!out.flush()) failAt(path.string(), "writing failed (is the disk full, or the directory read-only?)");
}

namespace {

std::mutex& openMutex() {
    static std::mutex m;
    return m;
}
std::set<std::filesystem::path>& openPartials() {
    static std::set<std::filesystem::path> s;
    return s;
}

}  // namespace

OutputDirectory::OutputDirectory(const std::filesystem::path& out) : m_out(out), m_partial(out) {
    namespace fs = std::filesystem;
    m_partial += ".partial";
    std::error_code ec;
    if (fs::exists(fs::symlink_status(out, ec)))
        failAt(out.string(), "already exists; give a new directory (nothing was written)");
    fs::remove_all(m_partial, ec);  // a previous run's, interrupted before this safeguard existed
    if (!fs::create_directories(m_partial, ec) || ec)
        failAt(m_partial.string(), "cannot be created (" + (ec ? ec.message() : std::string("it exists")) +
                                       "); give --out a directory whose parent exists and is writable");
    std::lock_guard lock(openMutex());
    openPartials().insert(m_partial);
}

OutputDirectory::~OutputDirectory() {
    {
        std::lock_guard lock(openMutex());
        openPartials().erase(m_partial);
    }
    std::error_code ec;
    if (!m_committed) std::filesystem::remove_all(m_partial, ec);
}

void OutputDirectory::commit() {
    std::error_code ec;
    std::filesystem::rename(m_partial, m_out, ec);
    if (ec) failAt(m_out.string(), "cannot rename " + m_partial.string() + " to it: " + ec.message());
    m_committed = true;
}

void OutputDirectory::removePartialsOnInterrupt() {
    static std::once_flag once;
    std::call_once(once, [] {
        sigset_t signals;
        sigemptyset(&signals);
        sigaddset(&signals, SIGINT);
        sigaddset(&signals, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &signals, nullptr);
        std::thread([signals] {
            int signal = 0;
            sigwait(&signals, &signal);
            std::lock_guard lock(openMutex());
            for (const auto& p : openPartials()) {
                std::error_code ec;
                std::filesystem::remove_all(p, ec);
                std::fprintf(stderr, "\ninterrupted: removed %s\n", p.c_str());
            }
            std::_Exit(128 + signal);
        }).detach();
    });
}

}  // namespace qgpu
