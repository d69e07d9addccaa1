// How many steps a launch takes to its end, counted by the reference interpreter on a thread of its own
// after a build, for the progress report of a backend that is slower (the model: "after step 40 of 160,
// about 2 s left"). It only sizes that report; the backend computes every step itself.
#pragma once

#include <atomic>
#include <future>
#include <memory>

#include "qgpu/core/Isa.h"
#include "qgpu/core/Launch.h"

namespace qgpu {

class LaunchStepCounter {
public:
    LaunchStepCounter() = default;
    LaunchStepCounter(const LaunchStepCounter&) = delete;
    LaunchStepCounter& operator=(const LaunchStepCounter&) = delete;
    ~LaunchStepCounter();  // stops a count in progress

    // Counts `program`'s launch up to `limit` steps (a launch that goes on longer counts as unknown); stops
    // the count before.
    void start(const Program& program, const LaunchSpec& launch, int limit);
    void clear();  // no count
    int steps();   // 0 while counting, and when unknown

private:
    std::shared_ptr<std::atomic<bool>> m_stop;
    std::future<int> m_count;
    int m_steps = 0;
};

}  // namespace qgpu
