// Reading a whole file, with the error a user sees when it cannot be opened or is too big.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>

namespace qgpu {

// Sources, assembly and launch specs are read whole; none of ours comes near this.
constexpr size_t kMaxInputFileBytes = size_t(16) << 20;

// The file's bytes; throws DiagnosticError naming the path when it is not a readable regular file or
// holds more than `maxBytes`.
std::string readFile(const std::filesystem::path& path, size_t maxBytes = kMaxInputFileBytes);
// Writes `text` as the whole file; throws DiagnosticError naming the path when writing fails.
void writeTextFile(const std::filesystem::path& path, const std::string& text);

}  // namespace qgpu

namespace qgpu {

// The directory a long job writes: everything goes into a fresh OUT.partial-XXXXXX that only this run
// created (an existing OUT.partial is never touched), which commit() renames to OUT, so only a complete
// result ever carries the name. The constructor checks, before any work, that OUT does not exist, that no
// other process is writing OUT (a lock on OUT.lock) and that the temporary can be created; a job that
// throws, or one interrupted after removePartialsOnInterrupt(), leaves nothing behind.
class OutputDirectory {
public:
    explicit OutputDirectory(const std::filesystem::path& out);
    ~OutputDirectory();
    OutputDirectory(const OutputDirectory&) = delete;
    OutputDirectory& operator=(const OutputDirectory&) = delete;

    const std::filesystem::path& partial() const { return m_partial; }
    void commit();

    // Makes SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE remove every uncommitted temporary (and the lock
    // files this process created) and exit with 128 + the signal. Call it before any thread starts (a watcher
    // thread takes the signals; every later thread inherits the mask).
    static void removePartialsOnInterrupt();

private:
    void lock();
    void unlock();

    std::filesystem::path m_out, m_partial, m_lock;
    int m_lockFd = -1;
    bool m_ownsLock = false;  // this run created OUT.lock, so it removes it
    bool m_committed = false;
};

}  // namespace qgpu
