#include "WorkerProcess.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <fcntl.h>
#include <fstream>
#include <poll.h>
#include <pthread.h>
#include <stdexcept>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace qgpu {
namespace {

using Clock = std::chrono::steady_clock;

constexpr size_t kMaxPayload = size_t(64) << 20;
constexpr size_t kErrorHead = 16 << 10, kErrorTail = 48 << 10;
constexpr size_t kAltStackBytes = 256 << 10;

bool writeAll(int fd, const void* data, size_t size) {
    const char* bytes = static_cast<const char*>(data);
    while (size > 0) {
        ssize_t n = ::send(fd, bytes, size, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes += n;
        size -= size_t(n);
    }
    return true;
}

bool readAll(int fd, void* data, size_t size) {
    char* bytes = static_cast<char*>(data);
    while (size > 0) {
        ssize_t n = ::read(fd, bytes, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        bytes += n;
        size -= size_t(n);
    }
    return true;
}

// Bytes of address space the process holds now (the first field of /proc/self/statm, in pages).
size_t addressSpaceBytes() {
    std::ifstream statm("/proc/self/statm");
    size_t pages = 0;
    statm >> pages;
    return pages * size_t(sysconf(_SC_PAGESIZE));
}

// The limits of the next job, counted from what the worker has used and holds so far. Hard limits stay
// unlimited so that the next job can set its own.
void limitNextJob(uint64_t cpuSeconds, uint64_t memoryBytes) {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    uint64_t used = uint64_t(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + 1;
    rlimit cpu{rlim_t(used + cpuSeconds), RLIM_INFINITY};
    setrlimit(RLIMIT_CPU, &cpu);
    rlimit as{rlim_t(addressSpaceBytes() + memoryBytes), RLIM_INFINITY};
    setrlimit(RLIMIT_AS, &as);
}

struct WorkerThread {
    const std::function<void()>* setUp;
    const WorkerProcess::Job* job;
    int channel;
};

// The worker's loop: a request is its CPU seconds, its memory bytes and its size (3 x 64 bits), then its
// bytes; an answer is its size, then its bytes. The end of the requests ends the worker.
[[noreturn]] void serve(const WorkerThread& w) {
    (*w.setUp)();
    for (;;) {
        uint64_t header[3];
        if (!readAll(w.channel, header, sizeof header) || header[2] > kMaxPayload) _exit(0);
        std::string request(header[2], '\0');
        if (!readAll(w.channel, request.data(), request.size())) _exit(0);
        limitNextJob(header[0], header[1]);
        std::string answer = (*w.job)(request);
        uint64_t size = answer.size();
        if (!writeAll(w.channel, &size, sizeof size) || !writeAll(w.channel, answer.data(), answer.size())) _exit(0);
    }
}

void* workerThread(void* arg) {
    // Crash handlers run on an alternate stack, so that a stack overflow still reports itself.
    static thread_local std::string altStack(kAltStackBytes, '\0');
    stack_t ss{};
    ss.ss_sp = altStack.data();
    ss.ss_size = altStack.size();
    sigaltstack(&ss, nullptr);
    sigset_t own;  // the CPU limit's signal and the synchronous ones come to this thread
    sigemptyset(&own);
    for (int sig : {SIGXCPU, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP}) sigaddset(&own, sig);
    pthread_sigmask(SIG_UNBLOCK, &own, nullptr);
    serve(*static_cast<WorkerThread*>(arg));
}

[[noreturn]] void workerMain(const WorkerThread& w, int errorFd, size_t stackBytes) {
    // The caller's handlers (a cleanup on SIGINT, a fuzzer's or a sanitizer's crash report) are not the
    // worker's: its signals end it, and its setUp may install handlers of its own.
    for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGXCPU, SIGXFSZ, SIGSEGV, SIGBUS, SIGILL, SIGFPE,
                    SIGABRT, SIGTRAP, SIGSYS, SIGALRM, SIGUSR1, SIGUSR2})
        std::signal(sig, SIG_DFL);
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, nullptr);
    dup2(errorFd, STDERR_FILENO);
    // Only the channel and stderr stay open: another thread's pipes, inherited here, would keep its
    // reader from seeing their end while this worker lives.
    int channel = fcntl(w.channel, F_DUPFD, 3);
    close_range(3, unsigned(channel) - 1, 0);
    close_range(unsigned(channel) + 1, ~0U, 0);
    rlimit core{0, 0};  // a crash is reported, not dumped
    setrlimit(RLIMIT_CORE, &core);
    WorkerThread moved{w.setUp, w.job, channel};
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, stackBytes);
    pthread_t thread;
    if (pthread_create(&thread, &attr, workerThread, &moved) != 0) workerThread(&moved);
    pthread_join(thread, nullptr);
    _exit(0);
}

void appendCapped(std::string& text, const char* data, size_t n) {
    text.append(data, n);
    if (text.size() > kErrorHead + 2 * kErrorTail) text.erase(kErrorHead, text.size() - kErrorHead - kErrorTail);
}

// Reads what is in `fd` now into `text` (or, with `wait`, up to its end).
void readErrors(int fd, std::string& text, bool wait) {
    char buffer[1 << 14];
    for (;;) {
        if (wait) {
            pollfd p{fd, POLLIN, 0};
            if (poll(&p, 1, 2000) <= 0) return;
        }
        ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;
        appendCapped(text, buffer, size_t(n));
    }
}

}  // namespace

WorkerProcess::WorkerProcess(std::function<void()> setUp, Job job, size_t stackBytes)
    : m_setUp(std::move(setUp)), m_job(std::move(job)), m_stackBytes(stackBytes) {}

WorkerProcess::~WorkerProcess() { stop(); }

void WorkerProcess::start() {
    int pair[2], errors[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pair) != 0)
        throw std::runtime_error("could not start the compile's process (no socket pair)");
    if (pipe2(errors, O_CLOEXEC) != 0) {
        close(pair[0]);
        close(pair[1]);
        throw std::runtime_error("could not start the compile's process (no pipe)");
    }
    pid_t pid = fork();
    if (pid == 0) {
        close(pair[0]);
        close(errors[0]);
        workerMain(WorkerThread{&m_setUp, &m_job, pair[1]}, errors[1], m_stackBytes);
    }
    close(pair[1]);
    close(errors[1]);
    if (pid < 0) {
        close(pair[0]);
        close(errors[0]);
        throw std::runtime_error("could not start the compile's process (fork failed)");
    }
    fcntl(errors[0], F_SETFL, O_NONBLOCK);
    m_pid = pid;
    m_channel = pair[0];
    m_errors = errors[0];
}

JobOutcome WorkerProcess::run(const std::string& request, const JobLimits& limits) {
    std::lock_guard<std::mutex> lock(m_mutex);
    if (m_pid >= 0 && waitpid(m_pid, nullptr, WNOHANG) == m_pid) {  // it ended while idle (killed by someone)
        close(m_channel);
        close(m_errors);
        m_pid = -1;
    }
    if (m_pid < 0) start();
    std::string earlier;  // what earlier jobs wrote on stderr after their answers
    readErrors(m_errors, earlier, false);
    JobOutcome out;
    uint64_t header[3] = {uint64_t(limits.cpuSeconds), uint64_t(limits.memoryBytes), uint64_t(request.size())};
    if (!writeAll(m_channel, header, sizeof header) || !writeAll(m_channel, request.data(), request.size()))
        return finishFailed(out, false);
    auto deadline = Clock::now() + std::chrono::seconds(2 * limits.cpuSeconds + 10);
    pollfd fds[2] = {{m_channel, POLLIN, 0}, {m_errors, POLLIN, 0}};
    for (;;) {
        auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
        int ready = poll(fds, 2, int(std::max<long long>(0, left)));
        if (ready < 0 && errno == EINTR) continue;
        if (ready == 0) return finishFailed(out, true);
        if (fds[1].revents & POLLIN) readErrors(m_errors, out.errorText, false);
        if (!(fds[0].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        uint64_t size = 0;
        if (!readAll(m_channel, &size, sizeof size)) return finishFailed(out, false);
        if (size > kMaxPayload) {
            out.errorText += "\nthe answer has " + std::to_string(size) + " bytes, more than the limit\n";
            return finishFailed(out, false);
        }
        out.payload.resize(size);
        if (!readAll(m_channel, out.payload.data(), size)) return finishFailed(out, false);
        out.end = JobOutcome::End::Finished;
        out.errorText.clear();
        return out;
    }
}

// The worker ended (or is killed now, at the wall-clock limit or for an answer past the limit): its last
// stderr, how it ended; the next job starts a new one.
JobOutcome WorkerProcess::finishFailed(JobOutcome& out, bool wallKilled) {
    kill(m_pid, SIGKILL);  // nothing when it has ended: its status stays what ended it
    readErrors(m_errors, out.errorText, true);
    int status = 0;
    while (waitpid(m_pid, &status, 0) < 0 && errno == EINTR) {
    }
    close(m_channel);
    close(m_errors);
    m_pid = -1;
    out.payload.clear();
    out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    out.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 0;
    using End = JobOutcome::End;
    if (wallKilled)
        out.end = End::WallLimit;
    else if (out.errorText.find("out of memory") != std::string::npos)
        out.end = End::OutOfMemory;
    else if (out.signal == SIGXCPU)
        out.end = End::CpuLimit;
    else
        out.end = End::Crashed;
    return out;
}

void WorkerProcess::stop() {
    if (m_pid < 0) return;
    close(m_channel);
    close(m_errors);
    kill(m_pid, SIGKILL);
    while (waitpid(m_pid, nullptr, 0) < 0 && errno == EINTR) {
    }
    m_pid = -1;
}

}  // namespace qgpu
