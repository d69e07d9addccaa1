// A second thread for work split in two: split(job) runs job(0) on the calling thread and job(1) on the
// helper, and returns when both are done. Whichever thread comes to job(1) first runs it, so a helper that
// is descheduled (a busy machine) or asleep costs the caller nothing but doing both halves itself. The
// helper spins briefly between jobs (a token's phases follow each other within microseconds), then sleeps
// on the atomic until the next one.
#pragma once

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <thread>

namespace qgpu {

class HelperThread {
public:
    HelperThread();
    ~HelperThread();
    HelperThread(const HelperThread&) = delete;
    HelperThread& operator=(const HelperThread&) = delete;

    // Rethrows an exception either half threw (the caller's first).
    void split(const std::function<void(int part)>& job);

private:
    void loop();
    bool claim(uint32_t ticket);  // true for the one thread that gets job(1) of `ticket`

    std::thread m_thread;
    std::atomic<uint32_t> m_posted{0}, m_claimed{0}, m_done{0};
    const std::function<void(int)>* m_job = nullptr;
    std::exception_ptr m_error;
    bool m_stop = false;
};

}  // namespace qgpu
