#include "HelperThread.h"

namespace qgpu {

namespace {

// About 50 us of polling on a 3 GHz core before a wait that sleeps in the kernel.
constexpr int kSpins = 4000;

void relax() {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

// Waits until `value` differs from `old`; returns the new value.
uint32_t awaitChange(const std::atomic<uint32_t>& value, uint32_t old) {
    for (int spin = 0; spin < kSpins; ++spin) {
        uint32_t now = value.load(std::memory_order_acquire);
        if (now != old) return now;
        relax();
    }
    value.wait(old, std::memory_order_acquire);
    return value.load(std::memory_order_acquire);
}

}  // namespace

HelperThread::HelperThread() : m_thread([this] { loop(); }) {}

HelperThread::~HelperThread() {
    m_stop = true;
    m_posted.fetch_add(1, std::memory_order_release);
    m_posted.notify_one();
    m_thread.join();
}

void HelperThread::loop() {
    uint32_t seen = 0;
    for (;;) {
        seen = awaitChange(m_posted, seen);
        if (m_stop) return;
        if (!claim(seen)) continue;  // the caller took the second half itself
        try {
            (*m_job)(1);
        } catch (...) {
            m_error = std::current_exception();
        }
        m_done.store(seen, std::memory_order_release);
        m_done.notify_one();
    }
}

bool HelperThread::claim(uint32_t ticket) {
    uint32_t previous = ticket - 1;
    return m_claimed.compare_exchange_strong(previous, ticket, std::memory_order_acq_rel);
}

void HelperThread::split(const std::function<void(int part)>& job) {
    m_job = &job;
    m_error = nullptr;
    const uint32_t ticket = m_posted.load(std::memory_order_relaxed) + 1;
    m_posted.store(ticket, std::memory_order_release);
    m_posted.notify_one();
    std::exception_ptr mine;
    bool secondHere = false;
    try {
        job(0);
        // A helper that has not started yet (descheduled, or asleep) would only make this thread wait.
        if ((secondHere = claim(ticket))) job(1);
    } catch (...) {
        mine = std::current_exception();
    }
    // Unless this thread has the second half (or takes it now, after job(0) threw), the helper runs it.
    if (!secondHere && !claim(ticket))
        for (uint32_t done = m_done.load(std::memory_order_acquire); done != ticket;) done = awaitChange(m_done, done);
    if (mine) std::rethrow_exception(mine);
    if (m_error) std::rethrow_exception(m_error);
}

}  // namespace qgpu
