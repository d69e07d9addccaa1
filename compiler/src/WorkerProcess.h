// A process forked from this one that runs jobs one at a time under CPU-time, memory and wall-clock
// limits, on a large stack, so that a crash, an abort, a stack overflow or a runaway inside a job ends the
// worker and not the caller. A worker that ended is forked anew for the next job. Kept between jobs, the
// worker runs each on what earlier jobs set up (a compiler's tables and caches), as fast as in-process.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <functional>
#include <mutex>
#include <string>

namespace qgpu {

struct JobLimits {
    int cpuSeconds = 20;                   // CPU time one job may take
    size_t memoryBytes = size_t(2) << 30;  // address space one job may add to what the worker holds
};

struct JobOutcome {
    enum class End {
        Finished,     // the job returned; `payload` is what it returned
        CpuLimit,     // ended at the CPU-time limit
        WallLimit,    // killed at the wall-clock limit (twice the CPU limit plus 10 s: a blocked worker)
        OutOfMemory,  // an allocation failed at the memory limit
        Crashed,      // ended by another signal (`signal`) or an exit (`exitCode`)
    };
    End end = End::Crashed;
    int signal = 0;
    int exitCode = 0;
    std::string payload;
    std::string errorText;  // what the worker wrote on stderr during a job that failed: LLVM's fatal error
                            // and its stack dump (symbolization off)
};

class WorkerProcess {
public:
    using Job = std::function<std::string(const std::string& request)>;

    // `setUp` runs once in each new worker before its first job; `job` answers each request. The worker
    // runs both on a thread with a stack of `stackBytes`.
    WorkerProcess(std::function<void()> setUp, Job job, size_t stackBytes);
    ~WorkerProcess();
    WorkerProcess(const WorkerProcess&) = delete;
    WorkerProcess& operator=(const WorkerProcess&) = delete;

    // Runs the job on `request` in the worker; one at a time (callers on other threads wait). Throws
    // std::runtime_error when no worker can be started.
    JobOutcome run(const std::string& request, const JobLimits& limits);

private:
    void start();
    void stop();
    JobOutcome finishFailed(JobOutcome& out, bool wallKilled);

    std::function<void()> m_setUp;
    Job m_job;
    size_t m_stackBytes;
    std::mutex m_mutex;
    pid_t m_pid = -1;
    int m_channel = -1;  // the caller's end of the request/answer socket pair
    int m_errors = -1;   // the read end of the worker's stderr
};

}  // namespace qgpu
