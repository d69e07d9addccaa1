#include "qgpu/core/Files.h"

#include <fcntl.h>
#include <pthread.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
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
std::set<std::filesystem::path>& ownedLocks() {
    static std::set<std::filesystem::path> s;
    return s;
}

}  // namespace

OutputDirectory::OutputDirectory(const std::filesystem::path& out) : m_out(out), m_lock(out) {
    namespace fs = std::filesystem;
    m_lock += ".lock";
    lock();  // before the check: a writer that committed OUT while this one waited is seen
    std::error_code ec;
    if (fs::exists(fs::symlink_status(out, ec))) {
        unlock();
        failAt(out.string(), "already exists; give a new directory (nothing was written)");
    }
    std::string templ = out.string() + ".partial-XXXXXX";
    if (!::mkdtemp(templ.data())) {
        std::string why = std::strerror(errno);
        unlock();
        failAt(out.string(), "cannot create a temporary directory beside it (" + why +
                                 "); give --out a directory whose parent exists and is writable");
    }
    m_partial = templ;
    mode_t mask = ::umask(0);  // mkdtemp's 0700, widened to what a plain mkdir would give
    ::umask(mask);
    ::chmod(m_partial.c_str(), 0777 & ~mask);
    std::lock_guard guard(openMutex());
    openPartials().insert(m_partial);
}

// Takes OUT.lock, so that a second process writing the same OUT is refused at once.
void OutputDirectory::lock() {
    m_lockFd = ::open(m_lock.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
    m_ownsLock = m_lockFd >= 0;
    if (!m_ownsLock && errno == EEXIST)  // left by a run that was killed, or held by one that runs
        m_lockFd = ::open(m_lock.c_str(), O_RDWR | O_CLOEXEC | O_NOFOLLOW);
    if (m_lockFd < 0) return;  // an unwritable parent: the temporary's creation says so
    // Held, and still the file at OUT.lock: a writer that finished removes its lock file while holding it,
    // so a lock taken on the removed file (opened just before) guards nothing.
    bool held = ::flock(m_lockFd, LOCK_EX | LOCK_NB) == 0;
    struct stat opened {
    }, named{};
    bool current = held && ::fstat(m_lockFd, &opened) == 0 && ::stat(m_lock.c_str(), &named) == 0 &&
                   opened.st_ino == named.st_ino && opened.st_dev == named.st_dev;
    if (!current) {
        ::close(m_lockFd);
        m_lockFd = -1;
        failAt(m_out.string(), "another process is writing it (it holds " + m_lock.string() +
                                   "); wait for it to finish, or give another --out (nothing was written)");
    }
    std::lock_guard guard(openMutex());
    if (m_ownsLock) ownedLocks().insert(m_lock);
}

void OutputDirectory::unlock() {
    if (m_lockFd < 0) return;
    if (m_ownsLock) {
        std::error_code ec;
        std::filesystem::remove(m_lock, ec);  // while still held: a waiting writer never takes a removed file
        std::lock_guard guard(openMutex());
        ownedLocks().erase(m_lock);
    }
    ::close(m_lockFd);
    m_lockFd = -1;
}

OutputDirectory::~OutputDirectory() {
    {
        std::lock_guard guard(openMutex());
        openPartials().erase(m_partial);
    }
    std::error_code ec;
    if (!m_committed) std::filesystem::remove_all(m_partial, ec);
    unlock();
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
        sigaddset(&signals, SIGHUP);
        sigaddset(&signals, SIGQUIT);
        sigaddset(&signals, SIGPIPE);
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
            for (const auto& p : ownedLocks()) ::unlink(p.c_str());
            std::_Exit(128 + signal);
        }).detach();
    });
}

}  // namespace qgpu
